# PGXS build of pg_clarify.so from the C++17 core and glue: make && make install
MODULE_big = pg_clarify
EXTENSION = pg_clarify
DATA = $(wildcard catalog/pg_clarify--*.sql)
PGFILEDESC = "pg_clarify - clarification gate for Text-to-SQL agents"

CORE_SRCS = $(wildcard src/core/*.cpp)
GLUE_SRCS = $(wildcard src/pg/*.cpp)
OBJS = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

# The order of test/schedule: setup builds the fixture the others use.
REGRESS = $(shell sed -n 's/^test: //p' test/schedule)
REGRESS_OPTS = --load-extension=pg_clarify --no-locale

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -Isrc/core -Isrc/pg
# Warnings are errors: the glue and the core build warning-free against the server headers.
PG_CXXFLAGS = -std=c++17 -Wno-register -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
SHLIB_LINK = -lstdc++

# LLVM bitcode for JIT inlining is configured for C++14 on Debian; our code is C++17 and is never
# worth inlining into JIT-compiled expressions, so the bitcode step is off on purpose.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Rebuild what includes a changed header (PGXS tracks no header dependencies by default).
override CXXFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d)

# The core's own objects must never see PostgreSQL: src/core/core_guard.hpp checks this.
$(CORE_SRCS:.cpp=.o): CPPFLAGS += -DCLARIFY_CORE_BUILD
