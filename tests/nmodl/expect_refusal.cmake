# cmake -DPYTHON= -DTRANSLATOR= -DMOD= -DOUT= [-DEXPECT="LINE: CONSTRUCT"] -P expect_refusal.cmake
# Runs the translator on MOD and passes when it exits 2, prints "MOD:LINE: CONSTRUCT: ..." and
# writes no OUT. Without EXPECT, the first line of MOD says it: ": expect: LINE: CONSTRUCT".
if(NOT DEFINED EXPECT)
  file(STRINGS ${MOD} first LIMIT_COUNT 1)
  string(REGEX REPLACE "^: expect: " "" EXPECT "${first}")
endif()
file(REMOVE ${OUT})
execute_process(COMMAND ${PYTHON} ${TRANSLATOR} ${MOD} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${err}" err)
message("exit status ${rc}: ${err}")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit status 2")
endif()
string(FIND "${err}" "${MOD}:${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected \"${MOD}:${EXPECT}\" on stderr")
endif()
if(EXISTS ${OUT})
  message(FATAL_ERROR "${OUT} was written")
endif()
