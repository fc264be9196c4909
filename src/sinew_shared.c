/* libsinew.so is the modules' static libraries linked whole (src/CMakeLists.txt); a shared
 * library target needs one source of its own, and C needs one declaration in it. */
typedef int sinew_shared_library;
