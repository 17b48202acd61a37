/* Not part of the C ABI: helpers the Swift implementation (BlazeKitC) calls. Do not include. */
#ifndef BLAZEKIT_INTERNAL_H
#define BLAZEKIT_INTERNAL_H
#include "blazekit.h"
/** Stores a copy of `message` as the calling thread's last error (freed at thread exit). */
void blazekit_internal_set_error(const char *message);
/** The path of the shared object holding this code (libblazekit.so), or NULL. Static storage. */
const char *blazekit_internal_library_path(void);
#endif
