// PostgreSQL's base header for C++ translation units of the glue.
#pragma once

extern "C" {
#include "postgres.h"
}

// port.h renames the printf family to PostgreSQL's own; C++ headers that call std::snprintf
// (the core's JSON library) must see the C library's names.
#undef snprintf
#undef vsnprintf
#undef sprintf
#undef vsprintf
#undef fprintf
#undef vfprintf
#undef printf
#undef vprintf
