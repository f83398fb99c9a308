# Install rules and the CMake package (included from the top-level CMakeLists.txt):
# `cmake --install build --prefix P` lays out
#   P/bin/attncheck                       the CLI; it reads P/share/attncheck/contracts (src/cli/util.cpp)
#   P/share/attncheck/contracts, docs     the bundled contracts and the docs the CLI points into
#   P/include/attncheck/abi.h, ...        the C ABI header, the library's headers
#   P/lib/libattncheck_core.a             the library
#   P/lib/cmake/attncheck/                attncheckConfig.cmake (+ Version, exported targets,
#                                         AttncheckAudit.cmake: attncheck_add_audit, attncheck_add_gate)
# docs/consumers.md describes the package; tests/install/install.cmake tests it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ATTNCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/attncheck)
set(ATTNCHECK_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/attncheck)

# The exported names: attncheck::attncheck (the CLI), attncheck::abi; with COMPONENTS core,
# attncheck::kernels and attncheck::core.
set_target_properties(attncheck_cli PROPERTIES EXPORT_NAME attncheck)
set_target_properties(attncheck_abi PROPERTIES EXPORT_NAME abi)
set_target_properties(attncheck_kernels PROPERTIES EXPORT_NAME kernels)
set_target_properties(attncheck_core PROPERTIES EXPORT_NAME core)

install(TARGETS attncheck_cli attncheck_abi EXPORT attncheckTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS attncheck_kernels attncheck_core EXPORT attncheckCoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT attncheckTargets NAMESPACE attncheck:: DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)
install(EXPORT attncheckCoreTargets NAMESPACE attncheck:: DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)

install(FILES include/attncheck/abi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attncheck COMPONENT dev)
install(DIRECTORY src/attncheck/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attncheck COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(DIRECTORY contracts/ DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/contracts COMPONENT runtime)
install(DIRECTORY docs/ DESTINATION ${ATTNCHECK_INSTALL_DATADIR}/docs COMPONENT runtime)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

# 0.x: a minor release may change the CMake API, so 0.1 is satisfied by 0.1.y only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/attncheckConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/attncheckConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfig.cmake
                              INSTALL_DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/attncheckConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/AttncheckAudit.cmake
        DESTINATION ${ATTNCHECK_INSTALL_CMAKEDIR} COMPONENT dev)
