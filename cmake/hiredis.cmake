# Finds hiredis through pkg-config and sets EMQ_HIREDIS to the target the
# static core links: the shared library by default, or hiredis's own static
# archive with ECHOMQ_HIREDIS_STATIC=ON (the Python wheel uses it, so the
# extension carries its own hiredis and needs no libhiredis.so at run time).
# A missing piece stops the configure with the packages to install, because
# pkg-config's own message ("Package 'hiredis' ... not found") names none.
set(_emq_hint "On Debian/Ubuntu: apt-get install pkg-config libhiredis-dev (or run scripts/setup-deps.sh); on Fedora: dnf install pkgconf hiredis-devel. For a hiredis in another prefix, add its lib/pkgconfig to PKG_CONFIG_PATH.")

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "EchoMQ: pkg-config not found; it is needed to find hiredis. ${_emq_hint}")
endif()
pkg_check_modules(HIREDIS QUIET IMPORTED_TARGET hiredis)
if(NOT HIREDIS_FOUND)
  message(FATAL_ERROR "EchoMQ: hiredis not found (pkg-config hiredis). ${_emq_hint}")
endif()
set(EMQ_HIREDIS PkgConfig::HIREDIS)

if(ECHOMQ_HIREDIS_STATIC)
  # Only hiredis's own libdir is searched (a stray archive elsewhere could be
  # another version than the headers found above), plus its multiarch
  # subfolder: Debian's hiredis.pc says /usr/lib for /usr/lib/<triplet>.
  pkg_get_variable(_emq_hiredis_libdir hiredis libdir)
  find_library(ECHOMQ_HIREDIS_ARCHIVE NAMES libhiredis.a
               PATHS ${_emq_hiredis_libdir} ${HIREDIS_LIBRARY_DIRS}
                     ${_emq_hiredis_libdir}/${CMAKE_LIBRARY_ARCHITECTURE}
               NO_DEFAULT_PATH)
  if(NOT ECHOMQ_HIREDIS_ARCHIVE)
    message(FATAL_ERROR "EchoMQ: ECHOMQ_HIREDIS_STATIC needs hiredis's static archive libhiredis.a "
      "(built with -fPIC), not found in '${_emq_hiredis_libdir}'. Debian/Ubuntu's libhiredis-dev ships one: "
      "apt-get install libhiredis-dev. Or point -DECHOMQ_HIREDIS_ARCHIVE=/path/to/libhiredis.a at one.")
  endif()
  add_library(echomq_hiredis_static STATIC IMPORTED)
  get_target_property(_emq_inc PkgConfig::HIREDIS INTERFACE_INCLUDE_DIRECTORIES)
  get_target_property(_emq_opt PkgConfig::HIREDIS INTERFACE_COMPILE_OPTIONS)
  set_target_properties(echomq_hiredis_static PROPERTIES IMPORTED_LOCATION "${ECHOMQ_HIREDIS_ARCHIVE}")
  if(_emq_inc)
    set_target_properties(echomq_hiredis_static PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_emq_inc}")
  endif()
  if(_emq_opt)
    set_target_properties(echomq_hiredis_static PROPERTIES INTERFACE_COMPILE_OPTIONS "${_emq_opt}")
  endif()
  set(EMQ_HIREDIS echomq_hiredis_static)
  message(STATUS "EchoMQ: linking hiredis statically from ${ECHOMQ_HIREDIS_ARCHIVE}")
endif()
