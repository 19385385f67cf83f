# Sourced by the check_*.sh scripts: a scratch directory $tmp (removed at exit), the
# verdict $fail, and ok/bad/errors over the last command's $tmp/stderr.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $1"; [[ -f "$tmp/stderr" ]] && cat "$tmp/stderr"; fail=1; }
ok() { echo "ok   $1"; }
errors() { grep -c -E '^\[(error|warning|critical)\]' "$tmp/stderr"; }  # its error and warning lines
