#!/usr/bin/env bash
# A real full disk: a small tmpfs that another process fills while a run writes to it.
# The run exits 1 naming the path and the cause, and the .partial it keeps opens (h5py and
# h5dump) as a SONATA file of what its last flush wrote: its time stop counts its rows, its
# spikes are there, `interrupted` says why. A spikes-only run, or one with traces, that
# cannot fit the free space is refused before it starts (exit 2), not at its end.
# Needs a tmpfs: as root, or in a user and mount namespace (unshare -rm); else it skips
# (exit 77). Usage: check_full_disk.sh ARBOLITO PYTHON SOURCE_DIR
set -u
bin=$1; py=$2; src=$3
if [[ "${ARBOLITO_IN_NAMESPACE:-}" != 1 ]]; then
  if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
    ARBOLITO_IN_NAMESPACE=1 exec unshare -m "$0" "$@"
  elif unshare -rm true 2>/dev/null; then
    ARBOLITO_IN_NAMESPACE=1 exec unshare -rm "$0" "$@"
  fi
  echo "SKIP: no mount namespace here (neither root nor unshare -rm): no tmpfs to fill"; exit 77
fi
. "$(dirname "$0")/common.sh"
trap 'unmount; rm -rf "$tmp"' EXIT
mkdir "$tmp/disk"
unmount() { while grep -q " $tmp/disk " /proc/self/mounts; do umount "$tmp/disk" || break; done; }
disk() {  # size: a fresh tmpfs of that size at $tmp/disk
  unmount
  mount -t tmpfs -o "size=$1" tmpfs "$tmp/disk" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
}
# frames (rows), the frames the time stop counts, spikes, interrupted: as h5py reads them.
inspect() {
  "$py" - "$1" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
pop = next(iter(f["spikes"]))
rows, counted = -1, -1
if "report" in f:
    t = f[f"report/{pop}/mapping/time"][:]
    rows, counted = f[f"report/{pop}/data"].shape[0], round((t[1] - t[0]) / t[2])
print(rows, counted, len(f[f"spikes/{pop}/timestamps"]), f.attrs.get("interrupted", ""))
PY
}
ring="$src/examples/ring.json"

# --- traces: the disk fills while the run writes (2 MiB of frames into 4 MiB; dt a tenth of
# the model's so that the run lasts seconds, not the fraction of one the filler might miss) ---
disk 4m
out="$tmp/disk/r.h5"
"$bin" run "$ring" --tfinal 3000 --dt 0.0025 -o "$out" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 100); do [[ -s "$out.partial" ]] && break; sleep 0.02; done
sleep 0.3
dd if=/dev/zero of="$tmp/disk/filler" bs=4k 2>/dev/null
wait $pid; rc=$?
read -r rows counted spikes why < <(inspect "$out.partial" 2>/dev/null)
if [[ $rc -ne 1 ]]; then bad "disk filled mid-run: exit $rc, expected 1"
elif ! grep -q "r.h5.partial: cannot write: No space left on device" "$tmp/stderr"; then bad "disk filled mid-run: the cause not named"
elif [[ -z "${rows:-}" || $rows -lt 1 || $rows -ne $counted ]]; then bad "disk filled mid-run: unreadable or inconsistent (${rows:-no file} rows, ${counted:-} by the time stop)"
elif [[ ${spikes:-0} -lt 1 || "$why" != *"No space left on device"* ]]; then bad "disk filled mid-run: spikes ${spikes:-}, interrupted '$why'"
elif command -v h5dump >/dev/null && ! h5dump -H "$out.partial" >/dev/null 2>&1; then bad "disk filled mid-run: h5dump cannot open the .partial"
else ok "disk filled mid-run: exit 1, $rows frames and $spikes spikes readable: $(grep -E '^\[error\]' "$tmp/stderr")"; fi

# --- spikes only, the same: what the last flush wrote stays ---------------------------------
disk 1m
out="$tmp/disk/s.h5"
"$bin" run "$ring" --tfinal 1e6 --spikes-only -o "$out" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 100); do [[ -s "$out.partial" ]] && break; sleep 0.02; done
sleep 0.3
dd if=/dev/zero of="$tmp/disk/filler" bs=4k 2>/dev/null
# Spikes come at about 16 a second of simulated time: wait for the disk to give out.
for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -TERM $pid 2>/dev/null
wait $pid; rc=$?
read -r rows counted spikes why < <(inspect "$out.partial" 2>/dev/null)
if [[ $rc -ne 1 && $rc -ne 143 ]]; then bad "spikes only, disk filled: exit $rc"
elif [[ -z "${spikes:-}" || $spikes -lt 1 ]]; then bad "spikes only, disk filled: no readable spikes (${spikes:-no file})"
else ok "spikes only, disk filled: exit $rc, $spikes spikes readable ($why)"; fi

# --- too little room from the start: refused before the run --------------------------------
for case in "spikes-only 16k" "traces 48k"; do
  read -r what free <<<"$case"
  disk 1m
  dd if=/dev/zero of="$tmp/disk/filler" bs=4k count=$(( (1024 - ${free%k}) / 4 )) 2>/dev/null
  args=(); [[ $what == spikes-only ]] && args=(--spikes-only)
  "$bin" run "$ring" "${args[@]}" -o "$tmp/disk/o.h5" >/dev/null 2>"$tmp/stderr"; rc=$?
  if [[ $rc -ne 2 ]] || ! grep -q "the output needs about" "$tmp/stderr" || compgen -G "$tmp/disk/o.h5*" >/dev/null; then
    bad "$what with $free free: exit $rc"
  else ok "$what with $free free: refused: $(grep -E '^\[error\]' "$tmp/stderr")"; fi
done
# --- info --geometry into a full disk: exit 1, the older dump left as it was ----------------
disk 16k
echo '{"an": "older dump"}' > "$tmp/disk/g.json"
"$bin" info "$src/examples/single_cell.json" --geometry "$tmp/disk/g.json" >/dev/null 2>"$tmp/stderr"; rc=$?
if [[ $rc -ne 1 ]] || ! grep -q "g.json: cannot write: No space left on device" "$tmp/stderr" || grep -q wrote "$tmp/stderr"; then bad "info --geometry, disk full: exit $rc"
elif [[ "$(cat "$tmp/disk/g.json")" != '{"an": "older dump"}' ]] || compgen -G "$tmp/disk/g.json.*" >/dev/null; then bad "info --geometry, disk full: the older dump changed or a part was left"
else ok "info --geometry, disk full: exit 1, nothing truncated: $(grep -E '^\[error\]' "$tmp/stderr")"; fi
exit $fail
