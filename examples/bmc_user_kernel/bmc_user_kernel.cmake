# examples/bmc_user_kernel: a user's kernel and harness checked by attncheck's BMC engine
# (included from the top-level CMakeLists.txt; run by CTest, label bmc).
add_executable(bmc_user_kernel examples/bmc_user_kernel/main.cpp)
target_link_libraries(bmc_user_kernel PRIVATE attncheck::bmc)
add_test(NAME bmc.example-user-kernel COMMAND bmc_user_kernel)
set_tests_properties(bmc.example-user-kernel PROPERTIES LABELS bmc TIMEOUT 600)
