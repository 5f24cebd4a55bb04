//! The standard `process_*` metrics of a Prometheus client (CPU time, memory, threads, file
//! descriptors, start time), read from `/proc/self` at each scrape. The prometheus crate's own
//! collector needs the procfs crate and a second rustix, a fifth of the Kafka stack's build;
//! these seven numbers are a few lines of `/proc`.

use prometheus::core::{Collector, Desc};
use prometheus::{proto, Counter, IntGauge, Opts};

/// The process metrics of this process; registered once, updated at every scrape. On a system
/// without `/proc` every metric is absent rather than wrong.
pub struct ProcessCollector {
    descs: Vec<Desc>,
    cpu_seconds: Counter,
    open_fds: IntGauge,
    max_fds: IntGauge,
    virtual_memory: IntGauge,
    resident_memory: IntGauge,
    start_time: IntGauge,
    threads: IntGauge,
}

/// The fields of `/proc/self/stat` read here.
#[derive(Debug, PartialEq)]
struct Stat {
    /// User plus system time, in clock ticks.
    cpu_ticks: u64,
    threads: i64,
    /// Since boot, in clock ticks.
    start_ticks: u64,
    virtual_bytes: i64,
    resident_pages: i64,
}

impl Stat {
    /// Parses `/proc/[pid]/stat`: the command name is in parentheses and may hold spaces or
    /// parentheses itself, so fields are counted after the last `)`.
    fn parse(text: &str) -> Option<Stat> {
        let rest = &text[text.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // `fields[0]` is field 3 (state) of proc(5).
        let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<i64>().ok());
        Some(Stat {
            cpu_ticks: u64::try_from(field(14)? + field(15)?).ok()?,
            threads: field(20)?,
            start_ticks: u64::try_from(field(22)?).ok()?,
            virtual_bytes: field(23)?,
            resident_pages: field(24)?,
        })
    }

    fn read() -> Option<Stat> {
        Stat::parse(&std::fs::read_to_string("/proc/self/stat").ok()?)
    }
}

/// Seconds since the epoch at boot (`btime` of `/proc/stat`).
fn boot_time() -> Option<i64> {
    std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime ")?.trim().parse().ok())
}

fn sysconf(name: libc::c_int) -> i64 {
    // SAFETY: sysconf reads a system constant; no memory is passed.
    (unsafe { libc::sysconf(name) } as i64).max(1)
}

impl ProcessCollector {
    /// The collector of this process.
    pub fn for_self() -> prometheus::Result<ProcessCollector> {
        let int = |name: &str, help: &str| IntGauge::with_opts(Opts::new(name, help));
        let collector = ProcessCollector {
            descs: Vec::new(),
            cpu_seconds: Counter::with_opts(Opts::new(
                "process_cpu_seconds_total",
                "Total user and system CPU time spent in seconds.",
            ))?,
            open_fds: int("process_open_fds", "Number of open file descriptors.")?,
            max_fds: int(
                "process_max_fds",
                "Maximum number of open file descriptors.",
            )?,
            virtual_memory: int(
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
            )?,
            resident_memory: int(
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
            )?,
            start_time: int(
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
            )?,
            threads: int("process_threads", "Number of OS threads in the process.")?,
        };
        if let (Some(stat), Some(boot)) = (Stat::read(), boot_time()) {
            let ticks = sysconf(libc::_SC_CLK_TCK);
            collector
                .start_time
                .set(boot + i64::try_from(stat.start_ticks).unwrap_or(0) / ticks);
        }
        let descs = collector
            .metrics()
            .iter()
            .flat_map(|m| m.desc().into_iter().cloned())
            .collect();
        Ok(ProcessCollector { descs, ..collector })
    }

    fn metrics(&self) -> [&dyn Collector; 7] {
        [
            &self.cpu_seconds,
            &self.open_fds,
            &self.max_fds,
            &self.virtual_memory,
            &self.resident_memory,
            &self.start_time,
            &self.threads,
        ]
    }
}

impl Collector for ProcessCollector {
    fn desc(&self) -> Vec<&Desc> {
        self.descs.iter().collect()
    }

    fn collect(&self) -> Vec<proto::MetricFamily> {
        let Some(stat) = Stat::read() else {
            return Vec::new();
        };
        let ticks = sysconf(libc::_SC_CLK_TCK) as f64;
        let seconds = stat.cpu_ticks as f64 / ticks;
        let counted = self.cpu_seconds.get();
        if seconds > counted {
            self.cpu_seconds.inc_by(seconds - counted);
        }
        self.threads.set(stat.threads);
        self.virtual_memory.set(stat.virtual_bytes);
        self.resident_memory
            .set(stat.resident_pages * sysconf(libc::_SC_PAGESIZE));
        if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
            self.open_fds.set(fds.count() as i64);
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct passed, which lives for the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            self.max_fds
                .set(i64::try_from(limit.rlim_cur).unwrap_or(i64::MAX));
        }
        self.metrics().iter().flat_map(|m| m.collect()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let line = "4242 (a (strange) name) S 1 4242 4242 0 -1 4194560 1983 0 0 0 \
                    150 25 0 0 20 0 7 0 123456 901120000 5120 18446744073709551615 1 1 0 0 0";
        assert_eq!(
            Stat::parse(line),
            Some(Stat {
                cpu_ticks: 175,
                threads: 7,
                start_ticks: 123456,
                virtual_bytes: 901120000,
                resident_pages: 5120,
            })
        );
        assert_eq!(Stat::parse("4242 (cut short) S 1"), None);
    }

    #[test]
    fn this_process_is_measured() {
        let collector = ProcessCollector::for_self().unwrap();
        assert_eq!(collector.desc().len(), 7);
        let families = collector.collect();
        let value = |name: &str| {
            let family = families.iter().find(|f| f.name() == name).unwrap();
            let metric = &family.get_metric()[0];
            if family.get_field_type() == proto::MetricType::COUNTER {
                metric.get_counter().get_value()
            } else {
                metric.get_gauge().get_value()
            }
        };
        assert!(value("process_resident_memory_bytes") > 1e6);
        assert!(value("process_threads") >= 1.0);
        assert!(value("process_open_fds") >= 3.0);
        assert!(value("process_start_time_seconds") > 1.5e9);
        assert!(value("process_virtual_memory_bytes") >= value("process_resident_memory_bytes"));
    }
}
