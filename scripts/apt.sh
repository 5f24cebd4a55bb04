# Sourced by scripts/setup and scripts/test-tools: `apt_install PACKAGE...` installs the Debian
# packages that are not installed yet, with one `apt-get update` (root, or sudo).
apt_install() {
  local sudo="" missing=() p
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "${0##*/}: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}
