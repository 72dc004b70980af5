# PGXS build of pg_clarify.so from the C++17 core and glue: make && make install
MODULE_big = pg_clarify
EXTENSION = pg_clarify
DATA = $(wildcard catalog/pg_clarify--*.sql)
PGFILEDESC = "pg_clarify - clarification gate for Text-to-SQL agents"

CORE_SRCS = $(wildcard src/core/*.cpp src/core/*/*.cpp)
GLUE_SRCS = $(wildcard src/pg/*.cpp src/pg/*/*.cpp src/pg/*/*/*.cpp)
OBJS = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

# `make installcheck` runs sql/*.sql in a temporary instance that preloads the library
# (test/regress.conf), so it needs no running server, only `make install` first. Order: that of
# test/schedule (setup builds the fixture the others use), then any sql/*.sql it does not name.
SCHEDULED = $(shell sed -n 's/^test:[[:space:]]*//p' test/schedule)
REGRESS = $(SCHEDULED) $(filter-out $(SCHEDULED),$(basename $(notdir $(wildcard sql/*.sql))))
# Instance, results/ and regression.diffs all go under tmp_check/, the one directory that has to
# be writable by the user running the tests.
REGRESS_OPTS = --temp-instance=tmp_check/instance --temp-config=test/regress.conf \
	--outputdir=tmp_check --load-extension=pg_clarify --no-locale
REGRESS_PREP = regress-prep

PG_CONFIG ?= pg_config
# libpq: a standby's audit writer forwards its decisions to the primary (src/pg/replica/forward.cpp).
PG_CPPFLAGS = -Isrc -I$(shell $(PG_CONFIG) --includedir)
# Warnings are errors: the glue and the core build warning-free against the server headers.
# C++17 code: `concept` is an identifier here, not the C++20 keyword newer compilers warn about.
PG_CXXFLAGS = -std=c++17 -Wno-register -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-c++20-compat
# -Bsymbolic-functions: calls between the library's own functions go direct, not through the PLT
# (nothing interposes them); the gate's path per statement crosses dozens of them.
SHLIB_LINK = -lstdc++ -lpq -Wl,-Bsymbolic-functions

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

# initdb refuses root: as root, pg_regress runs as REGRESS_USER (default postgres), which must be
# able to read this tree; tmp_check/ is handed to it.
REGRESS_USER ?= postgres
ifeq ($(shell id -u),0)
REGRESS_AS = runuser -u $(REGRESS_USER) --
endif
pg_regress_installcheck = $(REGRESS_AS) $(top_builddir)/src/test/regress/pg_regress \
	--inputdir=$(srcdir) --bindir='$(bindir)' $(pg_regress_locale_flags) $(EXTRA_REGRESS_OPTS)

.PHONY: regress-prep
regress-prep:
	rm -rf tmp_check results regression.diffs regression.out
	mkdir -p tmp_check
ifneq ($(REGRESS_AS),)
	chown $(REGRESS_USER): tmp_check
	@$(REGRESS_AS) test -r sql/setup.sql || \
		{ echo "as root, tests run as $(REGRESS_USER), who cannot read $(CURDIR)" >&2; exit 1; }
endif
