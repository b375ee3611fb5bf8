# SPDX-License-Identifier: MIT
# tests/cases/packaging.cmake: the install, the .deb, pkg-config, CMake package, systemd examples and the cuaudit command.
case_script(packaging.sh)
# Where a tool the test needs is missing (scripts/setup.sh installs it with the extras), the
# test is reported as skipped, never as passed.
set_tests_properties(deb_package_is_lintian_clean
  systemd_drop_in_from_the_package_passes_systemd_analyze_verify PROPERTIES SKIP_RETURN_CODE 77)
# Building the package and installing take a while on a shared 2-core machine.
set_tests_properties(deb_description_dependencies_and_docs_follow_debian_policy
  deb_unpacked_pkg_config_examples_and_docs_name_the_installed_module
  deb_drop_in_environment_audits_a_program_from_the_staging_root deb_package_is_lintian_clean
  systemd_drop_in_from_the_package_passes_systemd_analyze_verify
  install_prefix_pkg_config_find_package_and_drop_in_name_the_module PROPERTIES TIMEOUT 300)
