#!/usr/bin/env bash
# Checks every dependency of clause and installs what is missing with apt-get
# (when run as root), or prints the exact command to run. Quiet and quick when
# everything is present, so every make target can call it.
set -euo pipefail

# pkg-config module or command  ->  Debian package
checks=(
  "pkg:ck libck-dev"
  "pkg:hwloc libhwloc-dev"
  "pkg:papi libpapi-dev"
  "pkg:cunit libcunit1-dev"
  "pkg:zlib zlib1g-dev"
  "pkg:gmp libgmp-dev"
  "cmd:erlc erlang-base"
  "cmd:pkg-config pkg-config"
  "cmd:gcc gcc"
)

missing=()
have_pkgconfig=0
command -v pkg-config >/dev/null 2>&1 && have_pkgconfig=1
for entry in "${checks[@]}"; do
  what=${entry%% *}
  package=${entry#* }
  case $what in
    pkg:*)
      if [ $have_pkgconfig -eq 0 ] || ! pkg-config --exists "${what#pkg:}"; then
        missing+=("$package")
      fi ;;
    cmd:*)
      command -v "${what#cmd:}" >/dev/null 2>&1 || missing+=("$package") ;;
  esac
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "clause: missing dependencies: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "clause: install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
echo "clause: installed ${missing[*]}" >&2
