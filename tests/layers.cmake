# The library's layers (CMakeLists.txt): only attncheck::property links RapidCheck, so the targets
# below it (attncheck::core) and beside it (attncheck::bmc) hold no RapidCheck symbol, defined or
# referenced; and attncheck::core links no SMT solver.
add_test(NAME layers.core-without-rapidcheck
         COMMAND bash -c "for lib in '$<TARGET_FILE:attncheck_core>' '$<TARGET_FILE:attncheck_bmc>'; do \
if nm -C \"$lib\" | grep -E ' (rc::|rapidcheck)'; then echo \"RapidCheck in $lib\"; exit 1; fi; done; \
if nm -C '$<TARGET_FILE:attncheck_core>' | grep -E ' z3::| Z3_'; then echo 'Z3 in attncheck_core'; exit 1; fi; \
nm -C '$<TARGET_FILE:attncheck_property>' | grep -q ' U rc::' && echo 'RapidCheck only in attncheck_property'")
set_tests_properties(layers.core-without-rapidcheck PROPERTIES LABELS unit)
