# Tests that drive the arbolito binary.
add_test(NAME cli_bad_input
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_bad_input.sh $<TARGET_FILE:arbolito> ${PROJECT_SOURCE_DIR}/tests/data/bad_models)
# Faults during a run: signals, a full disk, blow-ups, a bad -o, -o naming an input, two
# runs given the same -o.
add_test(NAME cli_faults
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_faults.sh $<TARGET_FILE:arbolito> /usr/bin/python3 ${PROJECT_SOURCE_DIR})
# compare: spike counts, spike-time differences and bitwise identity per solver, and the
# verdict at the default tolerances and at 0; a solver this machine cannot run refused
# before any runs; SIGINT and SIGTERM keep a readable .partial and the results so far
# (docs/compare.md).
add_test(NAME cli_compare
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_compare.sh $<TARGET_FILE:arbolito> /usr/bin/python3 ${PROJECT_SOURCE_DIR})
# A real full disk (a tmpfs that another process fills mid-run), where a mount namespace
# can be had; else skipped (exit 77).
add_test(NAME cli_full_disk
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_full_disk.sh $<TARGET_FILE:arbolito> /usr/bin/python3 ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_full_disk PROPERTIES SKIP_RETURN_CODE 77)
# --timeline: the ring example's marks as CSV and its epoch table beside it, which
# tools/timeline_summary.py reads (one line per epoch's update and exposed exchange, the
# epochs' breakdown); a file that is no timeline exits 2.
add_test(NAME cli_timeline_summary
         COMMAND sh -c "set -e; d=$(mktemp -d); trap 'rm -rf $d' EXIT
                        \"$0\" run '${PROJECT_SOURCE_DIR}/examples/ring.json' --tfinal 50 -o $d/r.h5 --timeline $d/t.csv 2>/dev/null
                        head -1 $d/t.csv | grep -qx 'thread,us,mark,step'
                        head -1 $d/t.epochs.csv | grep -qx 'epoch,step,rank,group,integrate_s,update_s,exposed_s,exchange_s,wall_s'
                        /usr/bin/python3 '${PROJECT_SOURCE_DIR}/tools/timeline_summary.py' $d/t.csv > $d/s.txt
                        grep -q '^run: .* epochs' $d/s.txt && grep -q '^exposed exchange: ' $d/s.txt
                        grep -q '^epochs: .* load imbalance' $d/s.txt
                        echo x,y > $d/bad.csv; rc=0; /usr/bin/python3 '${PROJECT_SOURCE_DIR}/tools/timeline_summary.py' $d/bad.csv 2>/dev/null || rc=$?
                        test $rc -eq 2"
                 $<TARGET_FILE:arbolito>)
# Busyring's unconnected synapses (Arbor's) change no bit of a run's output.
add_test(NAME cli_unconnected_synapses
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_unconnected_synapses.sh $<TARGET_FILE:arbolito> ${PROJECT_SOURCE_DIR})
# info without a model lists the catalogue: every mechanism with its kind and parameters.
add_test(NAME cli_info_mechanisms
         COMMAND sh -c "set -e; out=$(\"$0\" info)
                        echo \"$out\" | grep -Eq '^  hh +density +gnabar 0.12 S/cm2, gkbar 0.036 S/cm2'
                        echo \"$out\" | grep -Eq '^  iclamp +stimulus +delay 0 ms'"
                 $<TARGET_FILE:arbolito>)
# info --branches: the branch numbers locations use, with region, parent, length and the
# distance from the soma (examples/ball_and_stick.json: a soma of 12.6157 µm and a 200 µm
# dendrite from its end); a --gid the model lacks is exit 2.
add_test(NAME cli_info_branches
         COMMAND sh -c "set -e; out=$(\"$0\" info '${PROJECT_SOURCE_DIR}/examples/ball_and_stick.json' --branches)
                        echo \"$out\" | grep -Eq '^ +0 +soma +- +12.62 +0 \\(the soma, ±6.308\\)'
                        echo \"$out\" | grep -Eq '^ +1 +dend +0 \\(1\\) +200 +6.308-206.3 '
                        \"$0\" info '${PROJECT_SOURCE_DIR}/examples/single_cell.json' --branches | grep -Eq '^ +20 +(dend|apic|axon|soma) '
                        rc=0; \"$0\" info '${PROJECT_SOURCE_DIR}/examples/ball_and_stick.json' --branches --gid 5 2>/dev/null || rc=$?
                        test $rc -eq 2"
                 $<TARGET_FILE:arbolito>)
# --version's commit (cmake/git_commit.cmake): this checkout's where git knows it; none for
# a source archive, also one unpacked inside this checkout (whose commit is not its own).
add_test(NAME version_commit_from_git_only
         COMMAND sh -c "set -e; d=$(mktemp -d '${CMAKE_BINARY_DIR}/archive.XXXXXX'); trap 'rm -rf $d' EXIT
                        mkdir $d/src
                        '${CMAKE_COMMAND}' -DSOURCE_DIR=$d/src -DOUT=$d/archive.hpp -P '${PROJECT_SOURCE_DIR}/cmake/git_commit.cmake'
                        grep -qx '#define ARBOLITO_GIT_COMMIT \"\"' $d/archive.hpp
                        if git -C '${PROJECT_SOURCE_DIR}' rev-parse --show-toplevel >/dev/null 2>&1; then
                          '${CMAKE_COMMAND}' -DSOURCE_DIR='${PROJECT_SOURCE_DIR}' -DOUT=$d/checkout.hpp -P '${PROJECT_SOURCE_DIR}/cmake/git_commit.cmake'
                          grep -Eqx '#define ARBOLITO_GIT_COMMIT \"[0-9a-f]{12}\"' $d/checkout.hpp
                        fi")
