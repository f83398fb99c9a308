# The exec protocol described once (src/attncheck/audit/wire_format.tsv): C++ (protocol.cpp, through
# wire_format_peer.cpp), the Python package, the Node example and docs/audit-protocol.md's tables are
# checked against it by tools/check_wire_format.py; the second test plants drifts in copies and fails
# unless each is found. Node is optional (the Node example is then not checked, and says so).
add_executable(attncheck_wire_format_peer ${CMAKE_CURRENT_LIST_DIR}/wire_format_peer.cpp)
target_link_libraries(attncheck_wire_format_peer PRIVATE attncheck::audit)
find_program(ATTNCHECK_WIRE_NODE NAMES node nodejs)
set(_wire_args --cpp-peer $<TARGET_FILE:attncheck_wire_format_peer>)
if(ATTNCHECK_WIRE_NODE)
  list(APPEND _wire_args --node ${ATTNCHECK_WIRE_NODE})
endif()
add_test(NAME "protocol: protocol.cpp, protocol.py, the Node example and docs/audit-protocol.md agree with wire_format.tsv"
         COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_wire_format.py ${_wire_args})
add_test(NAME "protocol: a wire-format drift planted in the table, the docs, protocol.py or the Node example fails the check"
         COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_wire_format.py ${_wire_args} --self-test)
set_tests_properties("protocol: protocol.cpp, protocol.py, the Node example and docs/audit-protocol.md agree with wire_format.tsv"
                     "protocol: a wire-format drift planted in the table, the docs, protocol.py or the Node example fails the check"
                     PROPERTIES LABELS "audit;protocol" TIMEOUT 120)

# Kinds are described once (src/attncheck/audit/kinds/): no new `switch` on the kind elsewhere.
add_test(NAME "audit: no switch on the kernel kind anywhere in the source"
         COMMAND ${ATTNCHECK_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_kind_switches.py ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties("audit: no switch on the kernel kind anywhere in the source" PROPERTIES LABELS audit)
