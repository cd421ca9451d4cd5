# SPDX-License-Identifier: GPL-2.0
#
# rdma_tcp_port: RDMA_PS_TCP ports held in the host TCP port space.
#
#   make setup              install what everything below needs (Debian 12)
#   make toolchain-check    the pinned clang, libclang and bindgen agree (make tree runs it)
#   make kernel             the patched Linux 6.12 kernel (x86_64, for the VM)
#   make module             rdma_tcp_port.ko (CONFIG_RDMA_TCP_PORT=m) of that kernel
#   make series             patches/ again from the checkout (the module's patch)
#   make kunit KUNIT_ARCH=um|x86_64
#                           the KUnit suite, built into the patched kernel
#   make vm-test            the end-to-end tests in a VM with soft-iWARP, then
#                           the abuse suites (limit, fault, fuzz, stress, kernel);
#                           CONTROL=1: the same without the module, then the
#                           claims of both runs side by side (not in check)
#   make vm-suite SUITES="fuzz stress"
#                           some of the abuse suites alone
#   make fault-plant        the fault suite on a module with a planted leak: it
#                           must fail (the suite's control; not in check)
#   make qp-control         the QP suite on the kernel without the QP fixes
#                           (patches 1-2): every attack succeeds (not in check)
#   make demo               the main job: the seed's port collision, before and after, in the VM;
#                           CONTROL=1: the same steps, the module never loaded
#   make check              everything that tests the project (CI runs this)
#   make deb                the kernel and the module as Debian packages (out/deb/);
#                           KCONFIG=<file>: the kernel from that configuration
#   make deb-vm-test        boot what the packages install, in a VM (not in check)
#   make bench              what a reservation costs: bench/results/ (not a test);
#                           cmtime runs in make bench-vm-kernel's non-debug VM
#   make bench-profile      perf over the bind path in that VM (reports in CACHE/profile/)
#
# Builds live outside the checkout, in $(CACHE), keyed by the Debian package
# version of linux-source-6.12; a changed patches/ series is re-applied in
# place so that make rebuilds only what it touches. The last patch carries
# the module (Kconfig, Kbuild, src/, kunit/): `make tree` makes it again
# from the checkout first, so src/ is its one source. The benchmark (bench/)
# is not in the series: make bench adds it to its own kernel's tree.

SHELL := /bin/bash
PROJECT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KSRC_TAR ?= /usr/src/linux-source-6.12.tar.xz
CACHE ?= $(HOME)/.cache/rdma-tcp-port
KDEB = $(shell dpkg-query -W -f='$${Version}' linux-source-6.12 2>/dev/null | tr '~' '-')
TREE = $(CACHE)/linux-$(KDEB)
KBUILD_X86 = $(CACHE)/build-x86_64
KUNIT_ARCH ?= um
JOBS ?= $(shell nproc)

# The tools of every 6.12 build, named, never taken from PATH: clang, lld and
# llvm of LLVM_VERSION (LLVM=-14 makes kbuild call clang-14, ld.lld-14, ...),
# bindgen BINDGEN_VERSION from the cache (scripts/setup-host.sh installs
# both), and the libclang of that same clang, which bindgen loads at run time
# and would otherwise pick by highest version. kunit.py, make deb's module
# build and every kernel below get them; scripts/toolchain-check.sh fails a
# build whose bindgen does not see that clang's libclang.
LLVM_VERSION = 14
BINDGEN_VERSION = 0.69.5
BINDGEN_ROOT = $(CACHE)/tools/bindgen-$(BINDGEN_VERSION)
export LIBCLANG_PATH = $(shell llvm-config-$(LLVM_VERSION) --libdir 2>/dev/null)
KTOOLS = LLVM=-$(LLVM_VERSION) BINDGEN=$(BINDGEN_ROOT)/bin/bindgen
KUNIT_TOOLS = $(addprefix --make_options ,$(KTOOLS))
# Clippy checks the Rust of every kernel this project builds.
KMAKE = $(MAKE) -C $(TREE) $(KTOOLS) CLIPPY=1 -j$(JOBS)

.PHONY: all setup toolchain-check series series-check FORCE tree kernel module kunit kunit-all check \
	fmt fmt-check msrv-check layer-check version-check doc-check clippy checkpatch host-test rust-analyzer clean vm-test vm-suite fault-plant \
	demo bench bench-vm-kernel bench-profile deb-config deb deb-vm-test qp-control

all: kernel module

setup:
	bash $(PROJECT)/scripts/setup-host.sh $(LLVM_VERSION) $(BINDGEN_VERSION) $(BINDGEN_ROOT)

# series.sh takes about 10 s and every build asks for the series: it runs
# only when what it reads differs from what the stamp records (a file's
# content, one added or removed, the tarball), and only then changes the
# stamp, whose time the targets made from the series go by.
series: $(PROJECT)/out/.series
$(PROJECT)/out/.series: FORCE
	bash $(PROJECT)/scripts/series.sh $(PROJECT) $(KSRC_TAR) $@
FORCE:

# The checkout as `git add -A` would commit it (untracked files in, ignored
# ones out) makes the series it carries in patches/: checked on a copy, so
# that it fails on a tree whose src/ and module patch disagree, before any
# build has made the series again.
series-check:
	bash $(PROJECT)/scripts/series-check.sh $(PROJECT) $(KSRC_TAR)

# Every kernel build starts from the tree, so the tools are checked here.
tree: setup series
	@mkdir -p $(CACHE)
	bash $(PROJECT)/scripts/prepare-tree.sh $(PROJECT) $(TREE) $(KSRC_TAR)
	bash $(PROJECT)/scripts/toolchain-check.sh $(TREE) $(CACHE)/toolchain-check \
		$(BINDGEN_VERSION) $(KTOOLS)

toolchain-check: tree

# $(call kconfig,BUILD_DIR,FRAGMENTS,CHECKED): merge FRAGMENTS (the first is
# the base; scripts/merge-config.sh) into BUILD_DIR's .config, let
# olddefconfig fill in the rest, and fail unless every option of CHECKED
# came out as asked. The VM, benchmark and package kernels all use it.
define kconfig
	@mkdir -p $(1)
	$(PROJECT)/scripts/merge-config.sh $(2) > $(1)/fragment.config
	cp $(1)/fragment.config $(1)/.config
	$(KMAKE) O=$(1) olddefconfig
	$(PROJECT)/scripts/merge-config.sh $(3) > $(1)/checked.config
	$(PROJECT)/scripts/check-config.sh $(1)/checked.config $(1)/.config
endef

# The VM kernel: a small config grown with olddefconfig, as kunit.py does.
kernel: tree
	$(call kconfig,$(KBUILD_X86),$(PROJECT)/configs/vm.config,$(PROJECT)/configs/vm.config)
	$(KMAKE) O=$(KBUILD_X86) bzImage modules

# The VM kernel builds the module (CONFIG_RDMA_TCP_PORT=m, with clippy).
MODULE_KO = drivers/infiniband/rdma_tcp_port/src/rdma_tcp_port.ko
module: kernel
	@mkdir -p $(PROJECT)/out
	cp $(KBUILD_X86)/$(MODULE_KO) $(PROJECT)/out/
	@echo "module: $(PROJECT)/out/rdma_tcp_port.ko"

clippy: module

# The librdmacm tools the VM scripts use: rdma_hold takes, listens on and
# holds a port; rdma_conns opens and holds many connections; rdma_fill binds
# ids until refused; rdma_fault, rdma_fuzz and rdma_churn drive the fault,
# fuzz and stress suites.  series-functions: the names of the functions the
# C series adds, by which the fault suite knows a failure point as the
# series' own.
TOOLS = $(addprefix $(PROJECT)/out/,rdma_hold rdma_conns rdma_fill rdma_fault rdma_fuzz \
	rdma_churn rdma_qp series-functions)
$(PROJECT)/out/%: $(PROJECT)/e2e/%.c $(PROJECT)/e2e/port_space.h
	@mkdir -p $(PROJECT)/out
	cc -O2 -Wall -Werror -o $@ $< -lrdmacm -libverbs
$(PROJECT)/out/series-functions: $(PROJECT)/scripts/series-functions.sh $(PROJECT)/out/.series
	bash $< $(PROJECT)/patches >$@.tmp && mv $@.tmp $@

VM = $(PROJECT)/e2e/vm.sh $(KBUILD_X86) $(PROJECT)/out/rdma_tcp_port.ko $(PROJECT)/out

# Two VMs, one after the other: the consumers and scenarios
# (guest-tests.sh), then the abuse suites on a fresh boot (guest-suite.sh:
# whose iWARP QP a user may attach, per-user cap and memory cgroup,
# fail-nth fault injection, the differential fuzzer, everything at once,
# the kernel consumers' ids).  A
# guest's exit status is its suite's; the logs stay in $(CACHE), and
# $(CACHE)/live/ follows each run as it goes.  make vm-suite SUITES="fuzz" runs some of the suites alone.
# The limit suite goes last: after its thousands of ids and an OOM kill the
# guest is slower, and the stress run's counts depend on its speed.  The
# suites' VM gets 50 minutes, not vm.sh's 40: TCG's speed here varies up
# to threefold within a day, and a slow CI run once reached the 40 inside
# limit.
#
# CONTROL=1: the control run.  The scenarios never load the module, the
# suites keep it at reserve=none; every claim (e2e/lib.sh) must fail there
# and everything else hold.  Its logs are the *-control.log ones; then
# scripts/claims.sh sets each claim's answer in the last run with the
# module beside its answer without (README, "What each check claims").
SUITES ?= qp fault fuzz stress kernel limit
LOG = $(if $(CONTROL),-control)
vm-test: module $(TOOLS)
	set -o pipefail; VM_LIVE=$(CACHE)/live/vm-test$(LOG).log VM_ARGS="$(if $(CONTROL),control)" \
		$(VM) $(PROJECT)/e2e/guest-tests.sh 2>&1 | tee $(CACHE)/vm-test$(LOG).log $(if $(CONTROL),|| :)
	$(MAKE) vm-suite $(if $(CONTROL),|| :)
	$(if $(CONTROL),$(PROJECT)/scripts/claims.sh $(CACHE))

vm-suite: module $(TOOLS)
	set -o pipefail; VM_LIVE=$(CACHE)/live/vm-suites$(LOG).log VM_TIMEOUT=3000 \
		VM_ARGS="$(SUITES)$(if $(CONTROL), CONTROL=none)" \
		$(VM) $(PROJECT)/e2e/guest-suite.sh 2>&1 | tee $(CACHE)/vm-suites$(LOG).log

# The fault suite's own control: a module with a leak planted on an error
# path (e2e/fault-plant.patch) must fail it (6 min 31 s on 2026-12-07; not
# part of make check).  Rebuilds the checkout's module at the end.
fault-plant: module $(TOOLS)
	bash $(PROJECT)/scripts/fault-plant.sh $(PROJECT) $(CACHE)

# The QP suite's control (e2e/qp.sh): the VM kernel without the series'
# patches 1-2, where every attack must succeed (QP_EXPECT=upstream); not in
# make check, and in a VM of its own, since A's destroy of its QP then
# sleeps in D state for good (5 min here, the VM kernel rebuilt
# incrementally).  The tree is left without the two patches: the next
# build puts them back.
QP_CONTROL_LOG = $(CACHE)/qp-control.log
qp-control: setup series $(TOOLS)
	@mkdir -p $(CACHE)
	grep -v '^#' $(PROJECT)/patches/series | tail -n +3 > $(PROJECT)/out/series-qp-control
	bash $(PROJECT)/scripts/prepare-tree.sh $(PROJECT) $(TREE) $(KSRC_TAR) \
		$(PROJECT)/out/series-qp-control
	$(call kconfig,$(KBUILD_X86),$(PROJECT)/configs/vm.config,$(PROJECT)/configs/vm.config)
	$(KMAKE) O=$(KBUILD_X86) bzImage modules
	cp $(KBUILD_X86)/$(MODULE_KO) $(PROJECT)/out/qp-control.ko
	VM_TIMEOUT=900 VM_ARGS="qp QP_EXPECT=upstream" $(PROJECT)/e2e/vm.sh $(KBUILD_X86) \
		$(PROJECT)/out/qp-control.ko $(PROJECT)/out $(PROJECT)/e2e/guest-suite.sh \
		>$(QP_CONTROL_LOG) 2>&1 || :
	grep -E '^(PASS|FAIL): ' $(QP_CONTROL_LOG)
	! grep -E '^FAIL: (upstream|no such|own|A.s QP)' $(QP_CONTROL_LOG)

# CONTROL=1: the same demo without ever loading the module.
demo: module $(TOOLS)
	VM_ARGS="$(if $(CONTROL),control)" $(VM) $(PROJECT)/e2e/demo.sh

# x86_64 runs on two vCPUs, so that the threads of the race cases run in
# parallel there (UML has one CPU: they interleave).
KUNIT_QEMU_x86_64 = --qemu_args='-smp 2 -accel tcg,thread=multi'
KUNIT_FLAGS = --arch=$(KUNIT_ARCH) --build_dir=$(CACHE)/kunit-$(KUNIT_ARCH) \
	--kunitconfig=$(PROJECT)/kunit/.kunitconfig \
	--kunitconfig=$(PROJECT)/kunit/$(KUNIT_ARCH).config \
	$(KUNIT_TOOLS) --make_options CLIPPY=1 \
	$(KUNIT_QEMU_$(KUNIT_ARCH)) \
	--jobs=$(JOBS) --timeout=900

# kunit.py prints its own summary; the kernel's log is then searched for
# lockdep, KASAN, WARN and BUG reports, which fail the run too.
kunit: tree
	cd $(TREE) && python3 tools/testing/kunit/kunit.py run $(KUNIT_FLAGS)
	$(PROJECT)/scripts/check-kunit-log.sh $(CACHE)/kunit-$(KUNIT_ARCH)/test.log

kunit-all:
	$(MAKE) kunit KUNIT_ARCH=um
	$(MAKE) kunit KUNIT_ARCH=x86_64

# The benchmark kernel: KUnit's x86_64 QEMU with two CPUs (MTTCG), no
# lockdep or KASAN, the benchmark suite built in; then cmtime in the VM.
BENCH_FLAGS = --arch=x86_64 --build_dir=$(CACHE)/bench-x86_64 \
	--kunitconfig=$(PROJECT)/bench/.kunitconfig \
	$(KUNIT_TOOLS) \
	--qemu_args='-smp 2 -m 2048 -accel tcg,thread=multi' \
	--jobs=$(JOBS) --timeout=3600

# cmtime runs in a VM kernel of its own: the test VM's configuration
# without lockdep, KASAN and kmemleak (configs/bench-vm.config), which
# would inflate exactly the steps that create and release a socket.
KBUILD_BENCH_VM = $(CACHE)/build-bench-vm
BENCH_VM_FRAGMENTS = $(PROJECT)/configs/vm.config $(PROJECT)/configs/bench-vm.config
bench-vm-kernel: tree
	$(call kconfig,$(KBUILD_BENCH_VM),$(BENCH_VM_FRAGMENTS),$(BENCH_VM_FRAGMENTS))
	$(KMAKE) O=$(KBUILD_BENCH_VM) bzImage modules
	@mkdir -p $(PROJECT)/out/bench
	cp $(KBUILD_BENCH_VM)/$(MODULE_KO) $(PROJECT)/out/bench/

# The benchmark is not in the series: its own patch (scripts/bench-patch.sh,
# from bench/) goes on top of the series in the tree for the benchmark
# kernel's two boots only; bench-vm-kernel's `tree` takes it off again, as
# does any build's (make qp-control's way), re-running kconfig in each
# build directory once.
BENCH_PATCH = $(PROJECT)/out/bench/bench.patch
$(BENCH_PATCH): $(PROJECT)/scripts/bench-patch.sh $(PROJECT)/Kconfig $(PROJECT)/Kbuild \
		$(wildcard $(PROJECT)/bench/Kconfig $(PROJECT)/bench/Kbuild $(PROJECT)/bench/*.[ch])
	bash $< $(PROJECT) $@

# The per-operation cases run in a second boot too: between boots their
# ratios move by more than one boot's interval (report.py decides a goal
# only where both boots agree). kunit.py writes test.log in its build dir.
bench: tree module $(TOOLS) $(BENCH_PATCH)
	{ grep -v '^#' $(PROJECT)/patches/series; echo $(BENCH_PATCH); } > $(PROJECT)/out/bench/series
	bash $(PROJECT)/scripts/prepare-tree.sh $(PROJECT) $(TREE) $(KSRC_TAR) \
		$(PROJECT)/out/bench/series
	cd $(TREE) && python3 tools/testing/kunit/kunit.py run $(BENCH_FLAGS) \
		'rdma_tcp_port_bench'
	cp $(CACHE)/bench-x86_64/test.log $(CACHE)/bench-kunit.log
	cd $(TREE) && python3 tools/testing/kunit/kunit.py run $(BENCH_FLAGS) \
		'rdma_tcp_port_bench.per_op_*'
	cp $(CACHE)/bench-x86_64/test.log $(CACHE)/bench-kunit-2.log
	$(MAKE) bench-vm-kernel
	set -o pipefail; $(PROJECT)/e2e/vm.sh $(KBUILD_BENCH_VM) \
		$(PROJECT)/out/bench/rdma_tcp_port.ko $(PROJECT)/out \
		$(PROJECT)/bench/cmtime.sh 2>&1 | tee $(CACHE)/bench-cmtime.log
	python3 $(PROJECT)/bench/report.py $(CACHE)/bench-kunit.log \
		$(CACHE)/bench-cmtime.log $(PROJECT)/bench/results \
		$(CACHE)/bench-kunit-2.log

# The packages a real host installs (make deb; out/deb/): the patched
# kernel (bindeb-pkg) from the VM's configuration without its debug options
# plus the hardware iWARP drivers (configs/deb.config), or from
# KCONFIG=<file> with configs/deb-distro.config; and the module, built
# against that kernel, in a package of its own (scripts/deb-module.sh).
# make deb-vm-test boots what the packages install (e2e/deb-boot.sh).
KCONFIG ?=
DEB_DIR = $(CACHE)/deb$(if $(KCONFIG),-kconfig)
KBUILD_DEB = $(DEB_DIR)/build
# What is checked after olddefconfig: all of our own fragments, but of a
# configuration brought with KCONFIG only what we lay on it.
DEB_OVERLAYS = $(if $(KCONFIG),$(PROJECT)/configs/deb-distro.config,\
	$(PROJECT)/configs/bench-vm.config) $(PROJECT)/configs/deb.config
DEB_BASE = $(if $(KCONFIG),$(abspath $(KCONFIG)),$(PROJECT)/configs/vm.config)
DEB_CHECKED = $(if $(KCONFIG),,$(DEB_BASE)) $(DEB_OVERLAYS)
deb-config: tree
	$(call kconfig,$(KBUILD_DEB),$(DEB_BASE) $(DEB_OVERLAYS),$(DEB_CHECKED))

deb: deb-config
	$(KMAKE) O=$(KBUILD_DEB) bzImage modules
	rm -f $(DEB_DIR)/*.deb $(DEB_DIR)/*.changes $(DEB_DIR)/*.buildinfo
	$(KMAKE) O=$(KBUILD_DEB) bindeb-pkg
	bash $(PROJECT)/scripts/deb-module.sh $(PROJECT) $(TREE) $(KBUILD_DEB) $(DEB_DIR) \
		$(KTOOLS)
	@mkdir -p $(PROJECT)/out/deb
	rm -f $(PROJECT)/out/deb/*.deb
	find $(DEB_DIR) -maxdepth 1 -name '*.deb' ! -name '*-dbg_*' \
		-exec cp -t $(PROJECT)/out/deb/ {} +
	ls -l $(PROJECT)/out/deb/

deb-vm-test: deb $(PROJECT)/out/rdma_hold
	set -o pipefail; bash $(PROJECT)/e2e/deb-boot.sh $(PROJECT) $(DEB_DIR) \
		$(PROJECT)/out/deb 2>&1 | tee $(CACHE)/deb-vm-test.log

# Where the bind path's time goes (perf in the benchmark VM): the reports
# go to $(CACHE)/profile/ (bench/profile.sh). Not a benchmark, not a test.
bench-profile: bench-vm-kernel $(PROJECT)/out/rdma_hold $(PROJECT)/out/rdma_bindloop
	@mkdir -p $(CACHE)/profile
	VM_LIVE=$(CACHE)/profile/profile.log $(PROJECT)/e2e/vm.sh $(KBUILD_BENCH_VM) \
		$(PROJECT)/out/bench/rdma_tcp_port.ko $(PROJECT)/out $(PROJECT)/bench/profile.sh

fmt:
	rustfmt --edition 2021 $(PROJECT)/src/*.rs $(PROJECT)/src/sys/*.rs
	cd $(PROJECT) && cargo fmt --all

fmt-check:
	rustfmt --edition 2021 --check $(PROJECT)/src/*.rs $(PROJECT)/src/sys/*.rs
	cd $(PROJECT) && cargo fmt --all -- --check

# 6.12's Rust: rustc 1.78 at least, and no feature the tree does not allow.
# Clippy's msrv (the tree's .clippy.toml) checks APIs, not syntax, so the
# syntax newer than 1.78 is looked for here: `&raw const`/`&raw mut` (1.82).
msrv-check:
	@if grep -nE '&raw +(const|mut)\b' $(PROJECT)/src/*.rs $(PROJECT)/src/sys/*.rs; then \
		echo "msrv-check: &raw is rustc 1.82 syntax; 6.12 takes 1.78: use core::ptr::addr_of!" >&2; \
		exit 1; \
	fi
	@echo "msrv-check: no syntax newer than rustc 1.78"

# The module's Documentation/ page parses and is in its toctree; the make
# targets and repository paths that README.md and docs/ name exist.
# Debian's python3, which python3-docutils serves (scripts/setup-host.sh).
doc-check: tree
	/usr/bin/python3 $(PROJECT)/scripts/doc-check.py $(PROJECT) $(TREE)

# The abstraction layer (src/sys/) stands on its own: it imports nothing
# from the driver above it (its macros name themselves as $$crate::sys).
layer-check:
	@if grep -nE '\bcrate::' $(PROJECT)/src/sys/*.rs | grep -v '\$$crate::sys::'; then \
		echo "layer-check: src/sys/ uses the driver (above); pass it in instead" >&2; \
		exit 1; \
	fi
	@echo "layer-check: src/sys/ imports nothing from the driver"

# One version: the module's modinfo (and so its .deb) says the workspace's.
version-check:
	@v=$$(sed -n 's/^version = "\(.*\)"$$/\1/p' $(PROJECT)/Cargo.toml); \
	grep -qF 'modinfo!("version", "'"$$v"'")' $(PROJECT)/src/rdma_tcp_port_main.rs || \
		{ echo "version-check: src/rdma_tcp_port_main.rs does not give version $$v (Cargo.toml)" >&2; exit 1; }; \
	echo "version-check: $$v"

# The tree is Debian's tarball, with no git history: checkpatch cannot look
# up the commit ids of the Fixes: tags (UNKNOWN_COMMIT_ID), which the cover
# letter's patches 1-6 carry.
checkpatch: tree
	cd $(TREE) && ./scripts/checkpatch.pl --strict --no-tree -q --ignore UNKNOWN_COMMIT_ID \
		$(addprefix $(PROJECT)/patches/,$(shell grep -v '^#' $(PROJECT)/patches/series))
	cd $(TREE) && ./scripts/checkpatch.pl --strict --no-tree -q \
		-f $(wildcard $(PROJECT)/kunit/*.[ch]) \
		$(PROJECT)/bench/rdma_tcp_port_bench.c \
		$(PROJECT)/bench/seed_provider.c $(PROJECT)/bench/seed_provider.h
	bash $(PROJECT)/scripts/kernel-doc-check.sh $(PROJECT) $(TREE) $(KSRC_TAR)

host-test:
	cd $(PROJECT) && cargo clippy --workspace --all-targets -- -D warnings
	cd $(PROJECT) && cargo test --workspace

rust-analyzer: kernel
	$(KMAKE) O=$(KBUILD_X86) rust-analyzer
	cp $(KBUILD_X86)/rust-project.json $(PROJECT)/

# The README's test command.
check: setup fmt-check msrv-check layer-check version-check series-check host-test checkpatch doc-check
	$(MAKE) kunit KUNIT_ARCH=um
	$(MAKE) kunit KUNIT_ARCH=x86_64
	$(MAKE) clippy
	$(MAKE) vm-test
	$(PROJECT)/scripts/summary.sh $(CACHE)/kunit-um/test.log \
		$(CACHE)/kunit-x86_64/test.log $(CACHE)/vm-test.log \
		$(CACHE)/vm-suites.log

clean:
	rm -rf $(PROJECT)/out $(PROJECT)/target
