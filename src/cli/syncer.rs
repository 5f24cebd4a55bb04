//! Syncs `extract`'s output files off the writing thread: a checkpoint seals the files (buffers
//! written, compressed members ended) and hands their handles and the mark to a thread that
//! `fsync`s them and only then passes the mark on to the shards. The writer never waits for the
//! disk; a mark never reaches a state before the bytes it counts are durable. Checkpoints that
//! queue up while the disk is slow are taken together: one sync of the files covers them all.

use std::fs::File;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use urltree::shards::outbox::Mark;
use urltree::shards::MarkHandle;

/// Files to sync and the mark they make true.
struct Job {
    files: Vec<File>,
    mark: Mark,
}

#[derive(Default)]
struct Shared {
    /// The newest mark whose files were synced.
    durable: Option<Mark>,
    /// The first sync that failed.
    error: Option<String>,
}

/// The syncing thread of one run.
pub struct Syncer {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Mutex<Shared>>,
}

impl Syncer {
    /// Starts the thread; synced marks go to `handle`.
    pub fn start(handle: MarkHandle) -> std::io::Result<Syncer> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("extract-sync".into())
                .spawn(move || {
                    while let Ok(mut job) = queue.recv() {
                        // A sync of the files covers every checkpoint queued before it.
                        while let Ok(next) = queue.try_recv() {
                            job = next;
                        }
                        let synced = job.files.iter().try_for_each(File::sync_data);
                        let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
                        match synced {
                            Ok(()) if shared.error.is_none() => {
                                handle.set(&job.mark);
                                shared.durable = Some(job.mark);
                            }
                            Ok(()) => {}
                            Err(e) => {
                                shared.error.get_or_insert_with(|| e.to_string());
                            }
                        }
                    }
                })?
        };
        Ok(Syncer {
            jobs: Some(jobs),
            thread: Some(thread),
            shared,
        })
    }

    /// Queues the sync of `files`, after which `mark` holds. Fails when an earlier sync failed.
    pub fn submit(&self, files: Vec<File>, mark: Mark) -> Result<(), String> {
        if let Some(error) = &self.shared.lock().unwrap_or_else(|e| e.into_inner()).error {
            return Err(error.clone());
        }
        if let Some(jobs) = &self.jobs {
            // The thread ends only when this sender goes.
            let _ = jobs.send(Job { files, mark });
        }
        Ok(())
    }

    /// Waits for the queued syncs; returns the newest mark made durable and the first error.
    pub fn stop(mut self) -> (Option<Mark>, Option<String>) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        (shared.durable.take(), shared.error.take())
    }
}
