# Runs test_dyn_lanes from the build with vector lanes and from the portable one (no GNU
# vectors: run_many steps each job alone) and requires the same bits in every rotation they
# traced: the lanes and the ISO C fallback are one step.
# cmake -DLANES=<exe> -DPORTABLE=<exe> -DDIR=<scratch dir> -P compare_builds.cmake
foreach(build LANES PORTABLE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SINEW_DYN_TRACE=${DIR}/trace_${build}.bin ${${build}}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${build}} failed (${rc}):\n${out}")
  endif()
  file(SIZE ${DIR}/trace_${build}.bin size_${build})
endforeach()
if(size_LANES EQUAL 0)
  message(FATAL_ERROR "the trace is empty: nothing was compared")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/trace_LANES.bin ${DIR}/trace_PORTABLE.bin
                RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "run_many with vector lanes and without them differ "
                      "(${size_LANES} and ${size_PORTABLE} bytes traced)")
endif()
message(STATUS "lanes and portable builds: the same ${size_LANES} bytes of rotations")
