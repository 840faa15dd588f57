# tests/fuzz/fuzz.mk - build the libFuzzer harnesses (included by the top-level Makefile).
#
# Each harness is one file, tests/fuzz/fuzz_<name>.c, whose lines
#   // fuzz-sources: core/config.c lib/json.c
# name the userland files it needs (relative to userland/; several such
# lines add up, so each stays within clang-format's 100 columns). "all" is
# everything the program links but main(): what a harness needs that goes
# through ps_views() (the registered steps' views). They are compiled here
# with clang, ASan and UBSan, apart from the normal gcc build, into
# $(OUT)/fuzz/obj/ and linked into $(OUT)/fuzz/fuzz_<name>.

FUZZ_CC ?= clang-14
FUZZ_OUT := $(OUT)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	-Wall -Wextra -Wno-unused-parameter -Iuserland -Ikmod/uapi -I$(OUT)/gen -Itests/fuzz \
	$(shell pkg-config --cflags $(PKGS))
FUZZ_LDLIBS := $(LDLIBS)
FUZZ_ALL := $(CORE_SRCS) $(REC_SRCS) $(addprefix userland/steps/,$(step-y:.o=.c)) $(OUT)/gen/step_schemas.c

FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_HARNESSES))
fuzz_sources = $(patsubst userland/all,$(FUZZ_ALL),$(addprefix userland/,\
	$(shell sed -n 's|^// *fuzz-sources:||p' tests/fuzz/fuzz_$(1).c)))
fuzz_objs = $(patsubst $(OUT)/gen/%.c,$(FUZZ_OUT)/obj/gen/%.o,\
	$(patsubst userland/%.c,$(FUZZ_OUT)/obj/userland/%.o,$(call fuzz_sources,$(1))))

# Userland files: warnings as the gcc build has them, but no -Werror (clang warns
# differently; the gcc build is the gate). Harnesses: -Werror.
$(FUZZ_OUT)/obj/userland/%.o: userland/%.c $(OUT)/gen/autoconf.h | $(OUT)/gen/version.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_OUT)/obj/gen/%.o: $(OUT)/gen/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_OUT)/obj/tests/fuzz/%.o: tests/fuzz/%.c $(OUT)/gen/autoconf.h | $(OUT)/gen/version.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -MMD -MP -c -o $@ $<

define fuzz_harness_rule
$(FUZZ_OUT)/fuzz_$(1): $(FUZZ_OUT)/obj/tests/fuzz/fuzz_$(1).o $(call fuzz_objs,$(1))
	$$(FUZZ_CC) $$(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $$(FUZZ_LDLIBS)
endef
$(foreach h,$(FUZZ_HARNESSES),$(eval $(call fuzz_harness_rule,$(h))))

-include $(shell find $(FUZZ_OUT)/obj -name '*.d' 2>/dev/null)

.PHONY: fuzz-build fuzz
fuzz-build: $(FUZZ_BINS)

# Every harness for FUZZ_S seconds (default 600), one after the other.
fuzz: fuzz-build
	tests/fuzz/run.sh $(if $(FUZZ_S),-t $(FUZZ_S)) $(FUZZ)
