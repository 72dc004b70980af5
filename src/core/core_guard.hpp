// The core is plain C++17: it must never see PostgreSQL's headers. Its own translation units
// are compiled with CLARIFY_CORE_BUILD (Makefile and CMake), where this guard fires.
#pragma once
#if defined(CLARIFY_CORE_BUILD) && \
    (defined(POSTGRES_H) || defined(PG_VERSION_NUM) || defined(PG_MODULE_MAGIC))
#error "src/core must not include PostgreSQL headers; translate in src/pg instead"
#endif
