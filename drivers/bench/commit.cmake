# Writes OUT with `#define BOREAS_GIT_COMMIT "<commit>"`: the -DBOREAS_GIT_COMMIT override when
# given, else `git describe --always --dirty` of SRC, else "unknown". Run at every build; OUT is
# rewritten only when the text changes, so boreas-bench recompiles only when the commit does.
if(NOT COMMIT)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                    WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(NOT rc EQUAL 0)
      set(COMMIT "")
    endif()
  endif()
endif()
if(NOT COMMIT)
  set(COMMIT "unknown")
endif()
set(text "#define BOREAS_GIT_COMMIT \"${COMMIT}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
