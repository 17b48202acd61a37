// CPrefetch is header-only (`include/CPrefetch.h`); SwiftPM needs one source file for a C target.
#include "CPrefetch.h"
