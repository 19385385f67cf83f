#!/usr/bin/env bash
# Ready for the next session's first device call (not yet run): the resident step's
# elimination with each thread's next branch head loaded before the level's barrier
# (ARBOLITO_FINE_HEADS in solvers/gpu/fine_block.cuh: fine_sweeps::branch_head, then only
# the children's folds after the barrier). The phase clock put some 480 cycles per level
# on the elimination beyond its rows (call 12a). ptxas: 100 bytes of spills at 8 rows
# ahead (40 without), 16 at 4 (8): ahead=4 may be where it pays. Same arithmetic, so the
# same bits: tools/check_identical.sh packs both binaries' outputs (h5diff them here).
# Pack: GPU_PACK_BINS="arbolito gpu_tests" bash bench/gpu_pack.sh build-gpu; then
#   bash bench/resident_profile.sh build-gpu .gpu_deps/prebuilt/arbolito-heads ARBOLITO_FINE_HEADS
#   bash bench/resident_profile.sh build-gpu .gpu_deps/prebuilt/arbolito-prof
#   bash bench/resident_profile.sh build-gpu .gpu_deps/prebuilt/arbolito-prof-heads \
#     ARBOLITO_RESIDENT_PROFILE ARBOLITO_FINE_HEADS
# (strip and gzip the three). Files: $OUT/heads_outputs.tgz. Log: $OUT/heads.log.
set -u
source bench/gpu_call_env.sh heads
R=gpu-fine:step=resident
PACK=$O/heads_outputs.tgz OUTDIR=/tmp/heads_id bash tools/check_identical.sh $P/arbolito $P/arbolito-heads \
  $R $R:ahead=4 >> $L 2>&1
mv $P/arbolito $P/arbolito-default && cp $P/arbolito-heads $P/arbolito
baseline $P/arbolito-default
for r in 1 2; do beside "8192" "$R $R:ahead=4" 50 $O/new.tsv $O/base.tsv; done
beside "32768" "$R $R:ahead=4" 50 $O/new.tsv $O/base.tsv
for f in new base; do echo "== $f (new: heads)" >> $L; cat $O/$f.tsv >> $L; done
phase_profile $R
mv $P/arbolito-prof-heads $P/arbolito-prof && echo "== heads' profile" >> $L && phase_profile $R
echo "== done in $SECONDS s" >> $L
cat $L
