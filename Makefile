# cmp-conformance: two commands matter.
#   make conformance   bring up Argo CD + plugins (embedded runtime), run the checks, write the report
#   make test          unit tests, then the suite's self-test against the broken witnesses
#                      (the catalogue at the newest version, the upgrade profile along SELFTEST_UPGRADE_PATHS,
#                      the plugin profile, the examples certified, and Argo CD's own e2e plugins
#                      certified against what their upstream tests assert: make upstream)
#   make upgrade       the upgrade profile: Argo CD moved along each of UPGRADE_PATHS
#   make matrix        the self-test at the matrix's other versions and upgrade paths
#   make certify       certify one plugin image on its own samples (CERTIFY_IMAGE, CERTIFY_SAMPLES)
#   make conformance RUNTIME=kind   the same against Argo CD installed from its release manifests
#                      in a kind cluster, the plugin images as repo-server sidecars (the service
#                      plugin a Deployment and Service); make env-up RUNTIME=kind leaves it running
#   make conformance RUNTIME=existing KUBECONFIG=... IMAGE_REGISTRY=host:port
#                      the same into a namespace of its own of a cluster you give, the run's images
#                      pushed to IMAGE_REGISTRY; make kind-target makes a throw-away one to try it on
#
# Binaries (argocd, kube-*, etcd, kwok, helm, kustomize) are cached under
# $XDG_CACHE_HOME/cmp-conformance (default ~/.cache): a first run builds them
# from source through the Go module proxy (see README: measured cold times), later
# runs reuse them.

SHELL := /bin/bash
OUTPUT ?= _output
BIN := $(OUTPUT)/bin/cmp-conformance
ARGOCD_VERSION ?=
RUNTIME ?= embedded
SOURCE_RUNTIME ?= embedded
LABEL_FILTER ?=
RUN_FLAGS ?=
GO ?= go
# -trimpath: compiled packages do not depend on the checkout's directory, so
# a clean clone elsewhere reuses the Go build cache (a new path recompiled
# every package of the module: about 20 s for the harness alone). -w: no
# DWARF, which took half of every link (the harness's: 10.7 s, 6.2 s
# without); stack traces keep their function names, files and lines.
export GOFLAGS += -trimpath -ldflags=-w
# No cgo, as the plugin programs, the Helm plugin and the tools built from
# source are compiled: cgo changes the cache key of every package that
# imports net, so the programs' packages (about 1,450, all in the harness's
# own closure) were compiled twice on a cold machine, and the harness's test
# binaries that import kustomize (which imports Go's plugin package) were
# linked by the external linker. Nothing here needs C: docs/decisions.md,
# "The harness without cgo".
export CGO_ENABLED = 0
# The harness's go.mod needs Go 1.27 (Argo CD v3.6's module) and names the
# approved patch on its toolchain line; auto (Go's default, which a machine's
# go env may set to local) fetches that toolchain through the module proxy,
# and leaves the Helm plugin's modules on the local Go as the tools' builds
# choose (toolchain.GoToolchainFor): one compiler per module graph, so that
# Argo CD's and Kubernetes' packages are compiled once for the harness and
# the argocd build (docs/decisions.md, "The harness on Argo CD's newest module").
export GOTOOLCHAIN = auto
# Environments the checks are shared out to (run --parallel): checks mostly
# wait on Argo CD, so 3 suit 2 cores (docs/performance.md). 4 were tried
# three times: once 12 % faster, once overloaded (load 11, checks about 4 times
# slower: stopped after 24 minutes with a third of its specs done), and once
# more in session 55, with discovery's spare work gone: self-test suite 557 s
# against 593 s for 3, the CPU saturated throughout; 3 kept.
PARALLEL ?= 3
PAR = $(if $(filter embedded,$(RUNTIME)),$(PARALLEL),1)
# Upgrade paths by name (cmp-conformance run --help), along the version matrix
# (`cmp-conformance tools matrix`): previous is previous -> current -> previous,
# oldest is oldest -> current, legacy is the last v2 release -> current,
# rollback is the previous patch -> current -> the previous patch.
UPGRADE_PATHS ?= previous oldest legacy rollback
# make test covers the newest version, the upgrade from v2 and the rollback
# of a patch (what a cold machine can build within CI's 90 minutes: the
# previous patch shares most of its build with the current one); make
# matrix runs the rest.
SELFTEST_UPGRADE_PATHS ?= legacy rollback
# Empty: the matrix's versions beside the newest, as the module proxy lists them.
MATRIX_VERSIONS ?=
# certify-extension-matrix: the extension folder, and the versions (default: the matrix).
EXTENSION ?= plugins/extension
EXTENSION_VERSIONS ?=
MATRIX_UPGRADE_PATHS ?= previous oldest

# The reference plugins that ship as images (plugins/<folder>/Dockerfile) run
# from them, as Argo CD's documented sidecar (testcontainers-go), ROLE=IMAGE;
# PLUGIN_IMAGES= runs them as host processes instead. The git-creds reference
# runs from its image too: its sidecar reads the SSH key the repo-server
# writes to the pod's /dev/shm (docs/decisions.md, "SSH too: the pod's /dev/shm").
PLUGIN_IMAGES ?= plain=cmp-conformance/plain:dev parameterized=cmp-conformance/sidecar:dev \
  files=cmp-conformance/contract:dev preserve-file-mode=cmp-conformance/contract-preserve:dev \
  init=cmp-conformance/contract-init:dev discover-file-name=cmp-conformance/discover-name:dev \
  discover-glob=cmp-conformance/discover-glob:dev discover-command=cmp-conformance/discover-command:dev \
  named-only=cmp-conformance/named-only:dev git-creds=cmp-conformance/contract-gitcreds:dev
# On kind a plugin runs only from an image: the faulty references too (on the
# embedded runtime they stay host processes, where the witnesses of their
# roles were proven), and the service plugin, as a Deployment and a Service.
KIND_PLUGIN_IMAGES ?= $(PLUGIN_IMAGES) faulty-dynamic=cmp-conformance/faulty:dev \
  faulty-generate=cmp-conformance/faulty-generate:dev service=cmp-conformance/service:dev
PLUGIN_IMAGE_FLAGS = $(foreach i,$(if $(filter kind existing,$(RUNTIME)),$(KIND_PLUGIN_IMAGES),$(PLUGIN_IMAGES)),--plugin-image $(i))
IMAGE_FLAGS = $(strip $(PLUGIN_IMAGE_FLAGS) $(CLUSTER_FLAGS))
# The existing runtime's cluster, and the registry its nodes pull the run's images from.
IMAGE_REGISTRY ?=
CLUSTER_FLAGS = $(if $(filter existing,$(RUNTIME)),--kubeconfig '$(KUBECONFIG)' --image-registry '$(IMAGE_REGISTRY)')

# The plugin certify judges, and its samples (certify.yaml): by default the
# plain reference plugin's image, certified as any author's would be.
CERTIFY_IMAGE ?= cmp-conformance/plain:dev
CERTIFY_SAMPLES ?= plugins/plain/certify.yaml

export ARGOCD_VERSION

.PHONY: all conformance certify upgrade matrix upstream upstream-plugins certify-side test unit source-check selftest selftest-upgrade selftest-certify selftest-side certify-extension certify-extension-matrix example-images examples tools tools-system test-deps plugin-images kind-node kind-target env-up env-down lint build clean help docs bench render-check

all: build

help:
	@sed -n '1,15p' Makefile

build: $(BIN)

# Always rebuilt: go build is incremental, and a stale harness is worse than a second.
# The settings above are go test's and go vet's too, so they share the build cache.
# -buildvcs=auto overrides a GOFLAGS=-buildvcs=false: the report names the
# commit the harness was built from (metadata.harness.revision).
$(BIN): FORCE
	@mkdir -p $(OUTPUT)/bin
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/cmp-conformance

FORCE:

## tools-system: the Debian packages a run needs: redis-server for Argo CD, git for the
## git server, what Argo CD's own image ships that its components run
## (gpg and gpg-agent for git-verify-wrapper.sh, ssh; fixtures/toolchain/image.go),
## a static busybox, the shell of the witness images FROM scratch,
## debootstrap, which makes the Debian base of the shell example's image, and
## headless Chromium, which loads UI extensions (EXT-006..010).
tools-system:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v git >/dev/null || missing="$$missing git"; \
	command -v gpg >/dev/null || missing="$$missing gpg"; \
	command -v gpg-agent >/dev/null || missing="$$missing gpg-agent"; \
	command -v ssh >/dev/null || missing="$$missing openssh-client"; \
	test -x /bin/busybox || missing="$$missing busybox-static"; \
	command -v debootstrap >/dev/null || test -x /usr/sbin/debootstrap || missing="$$missing debootstrap"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq $$missing >/dev/null; fi; \
	fi

## test-deps: what the unit tests need beyond Go: Debian's headless Chromium, which
## opens report.html (reports/html_test.go) and takes a screenshot of it.
test-deps:
	@command -v chromium >/dev/null || { echo "installing: chromium"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

## tools: every binary a run needs, obtained by version (cache, download, or source build).
tools: tools-system build
	$(BIN) tools get --runtime $(RUNTIME)

## plugin-images: the reference plugins' images, built offline (FROM scratch; about a second each).
plugin-images: build
	$(if $(PLUGIN_IMAGE_FLAGS),$(BIN) images build --output $(OUTPUT),@true)

## kind-node: the kind node image, forged here (no registry): Kubernetes built from the
## module proxy, kubeadm's images inside; tens of minutes cold, then cached by content.
kind-node: tools-system build
	$(BIN) images build --kind-node --output $(OUTPUT)

## conformance: the main job. ARGOCD_VERSION=v2.14.21 picks a version; LABEL_FILTER selects checks.
conformance: tools plugin-images
	$(BIN) run --runtime $(RUNTIME) --output $(OUTPUT) --parallel $(PAR) --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS)

## upgrade: one upgrade run per path of UPGRADE_PATHS (each obtains its versions first); fails if any run fails.
upgrade: tools plugin-images
	@failed=""; for p in $(UPGRADE_PATHS); do \
	  $(BIN) run --runtime $(RUNTIME) --output $(OUTPUT) --upgrade-path $$p --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS) || failed="$$failed $$p"; \
	done; if [ -n "$$failed" ]; then echo "upgrade runs failed:$$failed"; exit 1; fi

## certify: the plugin profile on one plugin image and its samples (cmp-conformance certify --help).
certify: tools plugin-images
	$(BIN) certify --runtime $(RUNTIME) --output $(OUTPUT) --image $(CERTIFY_IMAGE) --samples $(CERTIFY_SAMPLES) --label-filter '$(LABEL_FILTER)' $(RUN_FLAGS)

## bench: measure what users wait for on this machine (make conformance, the catalogue
## self-test, certify of the plain image, render of its sample as a folder and as an image)
## and write docs/performance.md from their reports and the toolchain cache (cold builds per
## tool). About 17 minutes with the tools cached on a fast day of this VM, an hour on a slow one.
BENCHMARKS = conformance selftest certify render
RENDER_RUNS = 5
bench: tools plugin-images
	rm -rf $(OUTPUT)/bench
	-$(BIN) run --runtime $(RUNTIME) --output $(OUTPUT)/bench/conformance --parallel $(PAR) $(IMAGE_FLAGS) $(RUN_FLAGS)
	-$(BIN) run --runtime $(RUNTIME) --output $(OUTPUT)/bench/selftest --parallel $(PAR) --self-test $(IMAGE_FLAGS) $(RUN_FLAGS)
	-$(BIN) certify --runtime $(RUNTIME) --output $(OUTPUT)/bench/certify --image cmp-conformance/plain:dev --samples plugins/plain/certify.yaml $(RUN_FLAGS)
	@mkdir -p $(OUTPUT)/bench/render
	for i in $$(seq $(RENDER_RUNS)); do \
	  $(BIN) render plugins/plain/samples/basic --plugin-dir plugins/plain --plugin-path $(OUTPUT)/bin --timings $(OUTPUT)/bench/render/timings.jsonl >/dev/null || exit 1; \
	  $(BIN) render --sample basic --samples plugins/plain/certify.yaml --image cmp-conformance/plain:dev --timings $(OUTPUT)/bench/render/timings.jsonl >/dev/null || exit 1; \
	done
	$(BIN) report performance --write docs/performance.md $(foreach b,$(filter-out render,$(BENCHMARKS)),$(b)=$(OUTPUT)/bench/$(b)/reports/latest) render=$(OUTPUT)/bench/render/timings.jsonl

## render-check: a sample rendered through the real repo-server and the plain plugin, no
## cluster (suites/render, as `cmp-conformance render` does), end to end.
RENDER_CHECK = env CMP_CONFORMANCE_RENDER_E2E=1 $(GO) test -count=1 ./suites/render
render-check: tools
	$(RENDER_CHECK)

## source-check: a checkout of the current release with one deliberate change (the
## repo-server stops sending ARGOCD_APP_NAME), built with --argocd-source: ENV-007 must
## catch it. Not in make test: it builds Argo CD from the tree (minutes).
## SOURCE_RUNTIME=kind builds its image and also gives it with --argocd-image (the kind node image built first).
source-check: tools plugin-images
	CMP_CONFORMANCE_SOURCE_E2E=$(SOURCE_RUNTIME) $(GO) test -count=1 -timeout 45m -run 'TestArgoCD(Source|Image)ChangeIsCaught' -v ./cmd/cmp-conformance

## docs: write the generated reference pages (docs/checks.md, docs/cli.md, the clean-clone
## runs of docs/performance.md; TestPagesAreCurrent and TestCLIReferenceIsCurrent fail
## when one is stale) and, given SCREENSHOT_OF=<a report.json>, docs/report-html.png of
## that report as headless Chromium shows it.
docs:
	$(GO) test -count=1 ./docs -update
	$(GO) test -count=1 -run TestCLIReferenceIsCurrent ./cmd/cmp-conformance -update
	@if [ -n "$(SCREENSHOT_OF)" ]; then \
	  CMP_CONFORMANCE_REQUIRE_CHROMIUM=1 CMP_CONFORMANCE_SCREENSHOT_OF=$(abspath $(SCREENSHOT_OF)) CMP_CONFORMANCE_SCREENSHOT_DIR=$(abspath docs) \
	    $(GO) test -count=1 -run TestHTMLInChromium ./reports; fi

## test: unit tests, then the end-to-end self-tests (every check against its broken witnesses).
test: unit selftest selftest-side certify-side

# plugins/helm is its own module (built on the Helm SDK), plugins/helm/helm4
# its Helm 4 build: both are tested here too, without cgo as everything here
# (CGO_ENABLED above). Each is at the Helm pin of a version make test runs,
# with its requirements at that Helm's own versions: Helm 3 at v3.16.3 (the
# legacy path's v2.14.21), Helm 4 at v4.3.1 (the rollback path's v3.6.1). So
# every compiled package of Helm's is shared with that helm build and the
# plugin's; moving one to the newest pin would only move that compile
# (docs/decisions.md, session 68's cold run and session 69's Helm 3 pin).
# The tests run as `go test -count=1` runs them, but each test binary is
# linked into this machine's cache (TEST_BINARIES, one folder per module),
# where Go relinks only those whose sources changed: linking all of them
# again was three quarters of this step's CPU (internal/testbins).
TEST_BINARIES ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cmp-conformance/test-binaries
TESTBINS = $(abspath $(OUTPUT))/bin/testbins
unit: test-deps
	$(GO) vet ./...
	$(GO) vet -tags certify ./examples/...
	@mkdir -p $(OUTPUT)/screenshots
	$(GO) build -o $(TESTBINS) ./internal/testbins
	CMP_CONFORMANCE_REQUIRE_CHROMIUM=1 CMP_CONFORMANCE_REQUIRE_DOCKER=1 CMP_CONFORMANCE_SCREENSHOT_DIR=$(abspath $(OUTPUT))/screenshots $(TESTBINS) $(TEST_BINARIES)/harness ./...
	cd plugins/helm && $(GO) vet ./... && $(TESTBINS) $(TEST_BINARIES)/helm ./...
	cd plugins/helm/helm4 && $(GO) vet -tags helm4 ./... && $(TESTBINS) -tags helm4 $(TEST_BINARIES)/helm4 ./...

selftest: tools plugin-images
	$(BIN) run --runtime $(RUNTIME) --output $(OUTPUT) --parallel $(PAR) --self-test --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS)

# Each path writes under $(OUTPUT)/upgrade-<path> from its own ports
# (UPGRADE_PORT_BASE + 100 per path). On the embedded runtime the paths run
# side by side, each line prefixed with its path: an upgrade mostly waits on
# Argo CD restarting, so two share 2 cores well; elsewhere one after another.
UPGRADE_PORT_BASE ?= 18080
UPGRADE_SELFTEST = $(BIN) run --runtime $(RUNTIME) --output $(OUTPUT)/upgrade-$$p --port-base $$base --upgrade-path $$p --self-test --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS)
selftest-upgrade: tools plugin-images
	@mkdir -p $(OUTPUT); $(SIDE_JOBS); base=$(UPGRADE_PORT_BASE); \
	for p in $(SELFTEST_UPGRADE_PATHS); do \
	  start $$p TERM 0 $(UPGRADE_SELFTEST); base=$$((base + 100)); \
	  if [ "$(RUNTIME)" != embedded ]; then finish; jobs=""; fi; \
	done; finish; if [ -n "$$failed" ]; then echo "upgrade self-tests failed:$$failed"; exit 1; fi

# The plugin profile: the plain reference plugin's image certified on its
# samples, and every PLUG check against the witnesses of profile plugin.
CERTIFY_SELFTEST = $(BIN) certify --runtime $(RUNTIME) --output $(OUTPUT) --parallel $(PAR) --image cmp-conformance/plain:dev --samples plugins/plain/certify.yaml --self-test --label-filter '$(LABEL_FILTER)' $(RUN_FLAGS)
selftest-certify: tools plugin-images
	$(CERTIFY_SELFTEST)

## selftest-side: make test's step for selftest-upgrade, selftest-certify and examples: on the
## embedded runtime side by side (each upgrade path, the certification and each example with its
## own ports and output, its lines prefixed with its name; Ctrl-C stops each and waits for its
## teardown), else one after another.
# Each of them alone leaves a quarter to a half of 2 cores idle, waiting on
# Argo CD; together they keep the machine busy without crowding it. The
# binary's runs take ports from SIDE_PORT_BASE (upgrade paths, then the
# certification's 3 environments, 100 apart), the examples' library runs
# the first free ranges from 18080.
SIDE_PORT_BASE ?= 19080
ifneq ($(RUNTIME),embedded)
selftest-side: selftest-upgrade selftest-certify examples
else
selftest-side: tools plugin-images example-images
	@$(SIDE_JOBS); base=$(SIDE_PORT_BASE); \
	for p in $(SELFTEST_UPGRADE_PATHS); do start $$p TERM 0 $(UPGRADE_SELFTEST); base=$$((base + 100)); done; \
	start certify TERM 0 $(CERTIFY_SELFTEST) --port-base $$base; \
	$(EXAMPLES_START); finish; $(EXAMPLES_EXPECT); \
	if [ -n "$$failed" ]; then echo "not as expected:$$failed"; exit 1; fi
endif

## certify-extension: the reference extension certified by the extension profile
## (cmp-conformance certify --extension; EXT-*), as an extension author would.
CERTIFY_EXTENSION = $(BIN) certify --runtime embedded --output $(OUTPUT)/certify-extension --extension plugins/extension $(RUN_FLAGS)
EXTENSION_EXPECT = $(BIN) report expect $(OUTPUT)/certify-extension/reports/latest --level Conformant
certify-extension: tools
	$(CERTIFY_EXTENSION)
	$(EXTENSION_EXPECT)

## certify-extension-matrix: EXTENSION certified on every Argo CD version of the matrix
## (EXTENSION_VERSIONS, else `tools matrix`: each version's own binaries judge it),
## one report per version joined into one (report merge) that lists where they differ.
certify-extension-matrix: tools-system build
	@versions="$(EXTENSION_VERSIONS)"; [ -n "$$versions" ] || versions="$$($(BIN) tools matrix --all)"; \
	out=$(OUTPUT)/extension-matrix; rm -rf $$out; cells=""; failed=""; for v in $$versions; do \
	  echo "== $(EXTENSION) on Argo CD $$v"; \
	  $(BIN) certify --runtime embedded --argocd-version $$v --output $$out/$$v --extension $(EXTENSION) $(RUN_FLAGS) || failed="$$failed $$v"; \
	  cells="$$cells $$v=$$out/$$v/reports/latest"; \
	done; $(BIN) report merge $$cells --output $$out/merged; \
	if [ -n "$$failed" ]; then echo "not Conformant on:$$failed"; exit 1; fi

## example-images: the example plugins' images (examples/*/Dockerfile); the shell
## example's Debian base is made once with debootstrap (about a minute) and kept.
example-images: build
	$(BIN) images build --examples --output $(OUTPUT)

## examples: certify the example plugins as their authors would, from `go test`
## (the certify library, suites/certify): shell-plugin in the testing.T form must be
## Conformant; go-plugin in the Ginkgo form Not Conformant for its one documented
## flaw (PLUG-004), nothing else; the extension Not Conformant for EXT-004. Each writes
## its report under examples/<name>/_output. They run side by side, each line prefixed
## with its name, as go test ./... runs packages: each run takes ports no other holds.
EXAMPLE_TEST = $(GO) test -tags certify -count=1 -timeout 30m
examples: tools example-images
	@mkdir -p $(OUTPUT); $(SIDE_JOBS); $(EXAMPLES_START); finish; $(EXAMPLES_EXPECT); \
	if [ -n "$$failed" ]; then echo "examples not as expected:$$failed"; exit 1; fi

# Shell functions of the recipes that run jobs side by side: `start NAME
# SIGNAL OK COMMAND...` runs COMMAND in a process group of its own, each
# line prefixed [NAME]; Ctrl-C (or TERM) sends every group its SIGNAL and
# waits for each teardown (the runs stop on TERM; go test passes INT on to
# its test binary and waits for it); `finish` waits for each and adds to
# $$failed every job whose exit code is not among OK (comma-separated).
SIDE_JOBS = jobs=""; failed=""; tidy=":"; \
	start() { setsid "$${@:4}" > >(sed -u "s/^/[$$1] /") 2>&1 & jobs="$$jobs $$1:$$2:$$3:$$!"; }; \
	trap 'for j in $$jobs; do IFS=: read -r n s ok g <<< "$$j"; kill -$$s -- -$$g 2>/dev/null; done; wait; eval "$$tidy"; exit 130' INT TERM; \
	finish() { for j in $$jobs; do IFS=: read -r n s ok g <<< "$$j"; wait $$g; c=$$?; \
	  case ",$$ok," in *",$$c,"*) ;; *) echo "$$n: exited $$c"; failed="$$failed $$n";; esac; done; eval "$$tidy"; }
# The examples, as go test runs them: the go-plugin and the extension are
# meant to fail one check each (exit 1); report expect judges each report.
# Their go commands build in a folder of the run (GOTMPDIR), removed at the
# end: go leaves its build folder behind when Ctrl-C stops it mid-build.
EXAMPLES_GOTMP = $(abspath $(OUTPUT))/examples-gotmp
EXAMPLES_START = rm -rf examples/shell-plugin/_output/reports examples/go-plugin/_output/reports examples/extension/_output/reports; \
	mkdir -p $(EXAMPLES_GOTMP); tidy="rm -rf $(EXAMPLES_GOTMP)"; \
	start shell-plugin INT 0 env GOTMPDIR=$(EXAMPLES_GOTMP) $(SHELL) -c "cd examples/shell-plugin && exec $(EXAMPLE_TEST) ."; \
	start go-plugin INT 0,1 env GOTMPDIR=$(EXAMPLES_GOTMP) $(SHELL) -c "cd examples/go-plugin && exec $(EXAMPLE_TEST) . -ginkgo.no-color"; \
	start extension INT 0,1 env GOTMPDIR=$(EXAMPLES_GOTMP) $(SHELL) -c "cd examples/extension && exec $(EXAMPLE_TEST) . -ginkgo.no-color"
EXAMPLES_EXPECT = expect() { $(BIN) report expect examples/$$1/_output/reports/latest "$${@:2}" || failed="$$failed $$1"; }; \
	expect shell-plugin --level Conformant; \
	expect go-plugin --level 'Not Conformant' --failed PLUG-004; \
	expect extension --level 'Not Conformant' --failed EXT-004

## upstream: certify Argo CD's own e2e plugins (test/e2e/testdata/cmp-* of the version's
## module; plugins/upstream/corpus.yaml) as their authors would ship them (a Debian image),
## on the samples and environment of their upstream tests, each against the level and
## failed checks derived from that test's assertions. Each log under _output/upstream/<name>.
## On the embedded runtime UPSTREAM_AT_ONCE (3) certifications run side by side, each with
## its own ports from UPSTREAM_PORT_BASE (100 apart); elsewhere one after another.
UPSTREAM_PORT_BASE ?= 20080
UPSTREAM_AT_ONCE ?= $(if $(filter embedded,$(RUNTIME)),3,1)
# One certification: $$0 name, $$1 port base, $$2 image, $$3 samples, $$4 level,
# $$5 failed checks, then RUN_FLAGS. TERM waits for certify's own teardown.
UPSTREAM_ONE = out=$(OUTPUT)/upstream/$$0; s=$$(date +%s); trap "exit 143" INT TERM; \
	$(BIN) certify --runtime $(RUNTIME) --output $$out --port-base $$1 --image $$2 --samples $$3 "$${@:6}" >$$out/certify.log 2>&1; \
	if $(BIN) report expect $$out/reports/latest --level "$$4" $${5:+--failed $$5}; then \
	  echo "upstream: $$0: $$4 as expected ($$(( $$(date +%s) - s ))s)"; else tail -40 $$out/certify.log; exit 1; fi
upstream: tools
	@$(MAKE) --no-print-directory upstream-plugins

# upstream's recipe, its prerequisites made (certify-side runs it beside others).
upstream-plugins:
	$(BIN) images build --upstream --output $(OUTPUT)
	@$(SIDE_JOBS); base=$(UPSTREAM_PORT_BASE); n=0; \
	while IFS=$$'\t' read -r name image samples level fails; do \
	  start $$name TERM 0 bash -c '$(UPSTREAM_ONE)' $$name $$base $$image $$samples "$$level" "$$fails" $(RUN_FLAGS); \
	  base=$$((base + 100)); n=$$((n + 1)); \
	  if [ $$n -ge $(UPSTREAM_AT_ONCE) ]; then finish; jobs=""; n=0; fi; \
	done < $(OUTPUT)/upstream/plan.tsv; finish; \
	if [ -n "$$failed" ]; then echo "upstream plugins not as their tests say:$$failed"; exit 1; fi

## certify-side: make test's last step: upstream, and beside it on the embedded runtime
## certify-extension and render-check (lines prefixed with their step; Ctrl-C stops each
## and waits for its teardown), else one after another. The two wait on Argo CD for most
## of their time (certify-extension's machine is 42 % busy alone, render-check's 55 %).
ifeq ($(RUNTIME),embedded)
certify-side: tools
	@$(SIDE_JOBS); \
	start certify-extension TERM 0 $(CERTIFY_EXTENSION); \
	start render-check INT 0 $(RENDER_CHECK); \
	$(MAKE) --no-print-directory upstream-plugins || failed="$$failed upstream"; \
	finish; $(EXTENSION_EXPECT) || failed="$$failed certify-extension"; \
	if [ -n "$$failed" ]; then echo "not as expected:$$failed"; exit 1; fi
else
certify-side: certify-extension upstream render-check
endif

## matrix: the self-test at every other version of the matrix, and the other upgrade paths
## (each version's binaries are built on first use: about 10 minutes each on a cold machine).
matrix: tools-system build plugin-images
	@versions="$(MATRIX_VERSIONS)"; [ -n "$$versions" ] || versions=$$($(BIN) tools matrix --others); \
	failed=""; for v in $$versions; do \
	  $(BIN) run --runtime $(RUNTIME) --output $(OUTPUT) --argocd-version $$v --parallel $(PAR) --self-test --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS) || failed="$$failed $$v"; \
	done; for p in $(MATRIX_UPGRADE_PATHS); do \
	  $(BIN) run --runtime $(RUNTIME) --output $(OUTPUT) --upgrade-path $$p --self-test --label-filter '$(LABEL_FILTER)' $(IMAGE_FLAGS) $(RUN_FLAGS) || failed="$$failed $$p"; \
	done; if [ -n "$$failed" ]; then echo "matrix runs failed:$$failed"; exit 1; fi

env-up: tools plugin-images
	$(BIN) env up --runtime $(RUNTIME) --output $(OUTPUT) $(IMAGE_FLAGS) $(RUN_FLAGS)

env-down: build
	$(BIN) env down --output $(OUTPUT)

## kind-target: a kind cluster and its registry, holding Argo CD's images and the fixtures', with
## nothing installed: a throw-away cluster for RUNTIME=existing (it prints the flags); make env-down removes it.
kind-target: tools plugin-images
	$(BIN) env up --runtime kind --cluster-only --output $(OUTPUT) $(RUN_FLAGS)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	cd plugins/helm && $(GO) vet ./...

clean:
	rm -rf $(OUTPUT)
