// Package v1alpha1 holds the versioned API of a cmp-conformance report.
//
// The JSON field names are part of the contract: CI systems and dashboards
// read report.json, so a rename is a new API version, not a refactor.
package v1alpha1

import "time"

// APIVersion and Kind identify a report document.
const (
	APIVersion = "reports.cmp-conformance.dev/v1alpha1"
	Kind       = "ConformanceReport"
)

// State is the outcome of one check.
type State string

// The states a check can end in.
const (
	StatePassed       State = "passed"
	StateFailed       State = "failed"
	StateNotSupported State = "not-supported"
	StateSkipped      State = "skipped"
	// StateNotApplicable: the check's version range excludes the Argo CD
	// version under test, so it is not part of the profile there.
	StateNotApplicable State = "not-applicable"
)

// Level says how much a check's outcome weighs in the verdict.
type Level string

// Core and Extended checks decide the verdict; Provisional checks record
// behaviour the spec promises that released Argo CD may not deliver yet.
const (
	LevelCore        Level = "Core"
	LevelExtended    Level = "Extended"
	LevelProvisional Level = "Provisional"
)

// Verdicts a report can reach.
const (
	VerdictPassed     = "passed"
	VerdictFailed     = "failed"
	VerdictIncomplete = "incomplete"
	// VerdictPartial: nothing failed, but some Core check of the profile did
	// not run (filtered out, not supported, skipped): not a pass.
	VerdictPartial = "partial"
)

// ConformanceReport is the document a conformance run produces.
type ConformanceReport struct {
	APIVersion  string       `json:"apiVersion"`
	Kind        string       `json:"kind"`
	Metadata    Metadata     `json:"metadata"`
	Environment Environment  `json:"environment"`
	Subject     Subject      `json:"subject"`
	Profile     string       `json:"profile,omitempty"`
	Summary     Summary      `json:"summary"`
	Results     []Result     `json:"results"`
	Divergences []Divergence `json:"divergences"`
	Timings     Timings      `json:"timings"`
	// Upgrade is set by an upgrade run only.
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	// Certification is set by a run of the plugin profile (certify) only.
	Certification *Certification `json:"certification,omitempty"`
	Interrupted   bool           `json:"interrupted,omitempty"`
	// SelfTest is set by a run in self-test mode: each check run against the
	// broken witness plugins that it must catch.
	SelfTest []SelfTestResult `json:"selfTest,omitempty"`
	// Error records a failure outside any check, e.g. a bring-up failure.
	Error string `json:"error,omitempty"`
}

// Certification levels, as Gateway API names its own.
const (
	LevelConformant          = "Conformant"
	LevelPartiallyConformant = "Partially Conformant"
	LevelNotConformant       = "Not Conformant"
	LevelNotCertified        = "Not Certified"
)

// Certification is the level one plugin reached in the plugin profile.
type Certification struct {
	// Subject is the plugin judged (name-version, and its image if any).
	Subject string `json:"subject"`
	// Level: Conformant (no check failed), Partially Conformant (every Core
	// check passed, a check of a declared feature failed), Not Conformant (a
	// Core check failed) or Not Certified (the run did not judge it whole).
	Level string `json:"level"`
	// Features whose every check passed ("Core" for the checks every
	// plugin must pass), and those the plugin does not declare.
	Passed       []string `json:"passedFeatures"`
	Failed       []string `json:"failedFeatures"`
	NotSupported []string `json:"notSupportedFeatures"`
	// NotRun lists the checks of the profile that did not run ("PLUG-008:
	// why"): filtered out, skipped, or beyond what the run's runtime can do.
	// Any makes the level Not Certified: a level says what was judged.
	NotRun []string `json:"notRun,omitempty"`
	// Badge is a Markdown line an author can paste in a README.
	Badge string `json:"badge"`
}

// Metadata identifies a run.
type Metadata struct {
	RunID string    `json:"runID"`
	Date  time.Time `json:"date"`
	// Command is the command line that reproduces the run.
	Command      string `json:"command"`
	SuiteVersion string `json:"suiteVersion"`
	// LabelFilter is the Ginkgo label filter that narrowed the run, if any.
	LabelFilter string `json:"labelFilter,omitempty"`
	// Harness identifies the cmp-conformance build that ran, from its Go
	// build information.
	Harness *Harness `json:"harness,omitempty"`
}

// Harness is the build of cmp-conformance that wrote a report.
type Harness struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	// Revision and Modified are the VCS commit the binary was built from
	// and whether the work tree had changes (Go's vcs.* build settings).
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// SHA256 is the digest of the running executable.
	SHA256 string `json:"sha256,omitempty"`
}

// Environment describes what the suite ran against.
type Environment struct {
	// Runtime is "embedded", "kind" or "existing".
	Runtime       string `json:"runtime"`
	Provider      string `json:"provider"`
	ArgoCDVersion string `json:"argocdVersion"`
	// ArgoCDImage, on kind, is the image Argo CD's workloads ran, with its
	// Docker image ID: "REF (sha256:...)", built here or given
	// (--argocd-image).
	ArgoCDImage       string   `json:"argocdImage,omitempty"`
	KubernetesVersion string   `json:"kubernetesVersion"`
	Binaries          []Binary `json:"binaries"`
	Host              Host     `json:"host"`
	// Notes are things the reader must know about the environment, e.g.
	// "using Argo CD v3.2.11, the newest version this machine can obtain".
	Notes []string `json:"notes,omitempty"`
	// Deviations are tools run at another version than the Argo CD
	// version pins, because the pinned release could not be obtained.
	Deviations []Deviation `json:"deviations,omitempty"`
}

// Deviation is a tool used at another version than its pin.
type Deviation struct {
	Tool string `json:"tool"`
	// Pinned is the version Argo CD's hack/tool-versions.sh names, Used the
	// one the run used instead.
	Pinned string `json:"pinned"`
	Used   string `json:"used"`
	Reason string `json:"reason"`
}

// Binary is one executable the run used, with its provenance.
type Binary struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	// Source is "cache", "download", "build" or "user".
	Source string `json:"source"`
	Path   string `json:"path"`
}

// Host describes the machine that ran the suite.
type Host struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
	CPUs int    `json:"cpus"`
}

// Subject lists the plugins under test.
type Subject struct {
	Plugins []Plugin `json:"plugins"`
	// Extensions are the Argo CD extensions under test (their folders).
	Extensions []Extension `json:"extensions,omitempty"`
}

// Extension is one extension folder under test: its resource
// customizations, tests and UI files.
type Extension struct {
	// Name is the folder's name; Dir the folder as given.
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Kinds are its <group>/<Kind> folders, each followed by " (useOpenLibs)"
	// where its extension.yaml turns Lua's open libraries on for it.
	Kinds []string `json:"kinds"`
	// SHA256 digests the folder's files (names and contents, in name
	// order): the extension judged, as a plugin's ConfigSHA256 names its.
	SHA256 string `json:"sha256"`
}

// Plugin is one Config Management Plugin under test.
type Plugin struct {
	Name         string `json:"name"`
	Version      string `json:"version"`
	ConfigSHA256 string `json:"configSHA256"`
	// Programs are the programs its plugin.yaml runs, with their digests.
	Programs []Program `json:"programs,omitempty"`
	// Image is the image the plugin ran from as a sidecar, and ImageID its
	// digest (which covers its programs); empty for a plugin of host programs.
	Image   string `json:"image,omitempty"`
	ImageID string `json:"imageID,omitempty"`
	// Entrypoint, for an image, is what its sidecar ran: "argocd" (Argo
	// CD's documented command, argocd-cmp-server) or "image" (the image's
	// own ENTRYPOINT, which starts argocd-cmp-server itself).
	Entrypoint string `json:"entrypoint,omitempty"`
}

// Program is one executable a plugin runs.
type Program struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// SHA256 is empty when the program could not be found or read; Error says why.
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Summary is the verdict and the per-level counts.
type Summary struct {
	// Verdict is "passed", "failed", "partial" or "incomplete".
	Verdict string `json:"verdict"`
	// Reasons say why the verdict is not "passed", one line each.
	Reasons []string         `json:"reasons,omitempty"`
	Counts  map[Level]Counts `json:"counts"`
	Total   int              `json:"total"`
	// SelfTest is nil when the run recorded no self-test results.
	SelfTest *SelfTestSummary `json:"selfTest,omitempty"`
}

// SelfTestSummary tallies the self-test results.
type SelfTestSummary struct {
	// Witnesses is the number of distinct witness plugins.
	Witnesses int `json:"witnesses"`
	// ChecksProven is the number of distinct checks with at least one OK
	// result that expected "fail", and that did not fail on the reference
	// plugins of the same run: checks shown able to fail, and able to pass.
	// A result that was not judged (SelfTestResult.Unjudged) is no proof.
	ChecksProven int `json:"checksProven"`
	// Mismatches is the number of results whose OK is false.
	Mismatches int `json:"mismatches"`
	// Unjudged is the number of results of Provisional checks that the
	// reference plugins fail too in the same run (and hop): Argo CD still
	// diverges from the documented behaviour, so no witness can show the
	// check either way. They are neither mismatches nor proofs.
	Unjudged int `json:"unjudged,omitempty"`
	// UnknownDivergence is the number of results of Provisional checks the
	// reference plugins have no verdict on in the same run (filtered out,
	// skipped): whether Argo CD still diverges is unknown, so they are not
	// judged either.
	UnknownDivergence int `json:"unknownDivergence,omitempty"`
	// DivergencesGone lists the Provisional checks with self-test results
	// that the reference plugins pass in this run ("ID", or "ID (hop NAME)" in an
	// upgrade run): Argo CD no longer diverges, so their witness results are
	// judged, and those that fail for the declared reason are proofs.
	DivergencesGone []string `json:"divergencesGone,omitempty"`
}

// Counts tallies results by state.
type Counts struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	NotSupported int `json:"notSupported"`
	Skipped      int `json:"skipped"`
	// NotApplicable counts checks whose version range excludes the run's
	// Argo CD version.
	NotApplicable int `json:"notApplicable,omitempty"`
}

// Result is the outcome of one check.
type Result struct {
	ID              string  `json:"id"`
	Title           string  `json:"title"`
	Area            string  `json:"area"`
	Level           Level   `json:"level"`
	State           State   `json:"state"`
	DurationSeconds float64 `json:"durationSeconds"`
	// SetupSeconds and CleanupSeconds are the time its spec spent before
	// and after the check: a binding's Argo CD settings set before its
	// first check, what the check created deleted and settings restored
	// after it. The suite's time is the checks', these, and the gaps.
	SetupSeconds   float64 `json:"setupSeconds,omitempty"`
	CleanupSeconds float64 `json:"cleanupSeconds,omitempty"`
	// Attempts is set only when a check was retried.
	Attempts  int       `json:"attempts,omitempty"`
	Message   string    `json:"message,omitempty"`
	Upstream  []string  `json:"upstream,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	// Observations are facts the check measured on the way, whatever its
	// verdict: resource counts before and after a fault, for instance.
	Observations []string `json:"observations,omitempty"`
	// Hop is the hop of an upgrade run this result belongs to, as Hop.Name;
	// empty outside upgrade runs.
	Hop string `json:"hop,omitempty"`
	// Steps are what the check did, in order: its log.
	Steps []Step `json:"steps,omitempty"`
	// Judged are the plugins the check judged, as role=plugin name.
	Judged []string `json:"judged,omitempty"`
	// Features are what the check needs the plugin to declare (none: every
	// plugin must pass it).
	Features []string `json:"features,omitempty"`
	// RuntimeLimited is set on a not-applicable result that applies to the
	// version but cannot run on the run's runtime (kind cannot reach the
	// plugins' sockets, say): unlike one that applies to no such version,
	// it leaves a pass partial.
	RuntimeLimited bool `json:"runtimeLimited,omitempty"`
	// BlockedBy names the check that owns the cause of this one's failure:
	// it could not judge, because what it needs (the sample generates,
	// judged by PLUG-002) does not hold. When the owner failed too, the
	// report counts the cause once, under the owner, and this result is
	// shown as not judged (State "skipped"); when the owner passed, it
	// stays a failure of its own.
	BlockedBy string `json:"blockedBy,omitempty"`
}

// Step is one step of a check (a Given, When or Then), timed from the
// check's start.
type Step struct {
	AtSeconds float64 `json:"atSeconds"`
	Text      string  `json:"text"`
}

// Divergence is the outcome of a Provisional check, listed separately so a
// reader sees at a glance where released Argo CD departs from the spec.
type Divergence struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Upstream []string `json:"upstream"`
	State    State    `json:"state"`
	Message  string   `json:"message"`
}

// What a self-test expects a check to do against a witness.
const (
	// ExpectFail: the witness violates the check, so the check must fail.
	ExpectFail = "fail"
	// ExpectPass: the witness does not violate the check, so it must pass.
	ExpectPass = "pass"
)

// SelfTestResult is one check run against a broken witness plugin.
type SelfTestResult struct {
	CheckID string `json:"checkID"`
	// Witness names the broken plugin, e.g. "broken/plain-drops-resources".
	Witness string `json:"witness"`
	// Expected is ExpectFail (the witness violates the check) or ExpectPass.
	Expected string `json:"expected"`
	Observed State  `json:"observed"`
	// OK says Observed agrees with Expected.
	OK bool `json:"ok"`
	// Message is the check's failure text, or why it disagreed.
	Message         string  `json:"message,omitempty"`
	DurationSeconds float64 `json:"durationSeconds"`
	// SetupSeconds and CleanupSeconds: as Result's.
	SetupSeconds   float64 `json:"setupSeconds,omitempty"`
	CleanupSeconds float64 `json:"cleanupSeconds,omitempty"`
	// Hop is the hop of an upgrade run this result belongs to, as Hop.Name;
	// empty outside upgrade runs.
	Hop string `json:"hop,omitempty"`
	// Steps are what the check did against the witness, in order.
	Steps []Step `json:"steps,omitempty"`
	// Provisional says the check is of level Provisional: it encodes
	// documented behaviour released Argo CD diverges from, and fails on the
	// reference plugins while the divergence holds. Such a result is judged
	// only where the reference plugins pass the check (Finalize decides).
	Provisional bool `json:"provisional,omitempty"`
	// Unjudged, set by Finalize on a result of a Provisional check, says why
	// the result was not judged: the reference plugins fail the check too
	// (Argo CD still diverges), or have no verdict on it in this run, or
	// pass it now while this witness no longer does what it declares (it no
	// longer proves the check). Such a result has OK true and is neither a
	// mismatch nor a proof.
	Unjudged string `json:"unjudged,omitempty"`
	// Disagreed, set with Unjudged, says that the result itself disagreed
	// with its witness's declaration (it would be a mismatch if judged): its
	// OK is true only because it was not judged.
	Disagreed bool `json:"disagreed,omitempty"`
}

// Timings records where the run spent its time.
type Timings struct {
	BringUpSeconds float64 `json:"bringUpSeconds"`
	SuiteSeconds   float64 `json:"suiteSeconds"`
	TotalSeconds   float64 `json:"totalSeconds"`
	Phases         []Phase `json:"phases"`
}

// Phase is one named stretch of the run (e.g. "cluster", "argocd").
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Upgrade describes an upgrade run: the version path, the applications
// created on its first version, and each hop.
type Upgrade struct {
	Path []string `json:"path"`
	// TimeoutSeconds bounds each application's return to Synced and Healthy after a hop.
	TimeoutSeconds float64      `json:"timeoutSeconds"`
	Apps           []UpgradeApp `json:"apps"`
	Hops           []Hop        `json:"hops"`
}

// UpgradeApp is an application created on the path's first version.
type UpgradeApp struct {
	Name    string `json:"name"`
	Binding string `json:"binding"` // "conformance", or the witness ("broken/...")
	Role    string `json:"role"`
	Plugin  string `json:"plugin"`
}

// Hop is one version switch of an upgrade run.
type Hop struct {
	Name    string   `json:"name"` // "v3.0.23 -> v3.2.11"
	From    string   `json:"from"`
	To      string   `json:"to"`
	Seconds float64  `json:"seconds"`
	Phases  []Phase  `json:"phases"`
	Apps    []HopApp `json:"apps"`
	// Checks are the states of the conformance results of this hop
	// (Finalize fills them).
	Checks []HopCheck `json:"checks"`
	Error  string     `json:"error,omitempty"`
}

// HopApp is what one application's manifests were on either side of a hop.
type HopApp struct {
	Name string `json:"name"`
	// ManifestsBefore and ManifestsAfter are "sha256:<hex>" of the normalized
	// manifests; After is empty when they could not be generated.
	ManifestsBefore string `json:"manifestsBefore"`
	ManifestsAfter  string `json:"manifestsAfter,omitempty"`
	// ExpectedDifferences are known semantic changes between the versions
	// seen on this hop, with their upstream references.
	ExpectedDifferences []string `json:"expectedDifferences,omitempty"`
}

// HopCheck is a check's state on one hop.
type HopCheck struct {
	ID    string `json:"id"`
	State State  `json:"state"`
}
