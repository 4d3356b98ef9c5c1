package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// AttestationFile is the in-toto statement Write puts beside the report, so
// a CI system can sign it with standard tools (cosign attest-blob, witness).
const AttestationFile = "attestation.intoto.json"

// The in-toto Statement v1 and the test-result predicate v0.1
// (https://github.com/in-toto/attestation/blob/main/spec/predicates/test-result.md).
const (
	statementType       = "https://in-toto.io/Statement/v1"
	testResultPredicate = "https://in-toto.io/attestation/test-result/v0.1"
)

type resourceDescriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
}

type statement struct {
	Type          string               `json:"_type"`
	Subject       []resourceDescriptor `json:"subject"`
	PredicateType string               `json:"predicateType"`
	Predicate     testResult           `json:"predicate"`
}

type testResult struct {
	// Result is PASSED, WARNED or FAILED.
	Result        string               `json:"result"`
	Configuration []resourceDescriptor `json:"configuration"`
	URL           string               `json:"url,omitempty"`
	PassedTests   []string             `json:"passedTests"`
	WarnedTests   []string             `json:"warnedTests"`
	FailedTests   []string             `json:"failedTests"`
}

// renderAttestation states what was tested and how it fared. The subjects
// are what the verdict is about: the Argo CD binary and each plugin's
// plugin.yaml and programs, by digest. The configuration is the harness
// build and the report itself (reportJSON, its exact bytes). Passed: every
// check that passed; failed: Core and Extended failures; warned: Provisional
// failures (divergences of released Argo CD) and Core checks that did not
// run. The result follows the verdict: passed is PASSED, failed FAILED,
// partial and incomplete WARNED.
func renderAttestation(r *v1alpha1.ConformanceReport, reportJSON []byte) ([]byte, error) {
	st := statement{Type: statementType, PredicateType: testResultPredicate, Subject: []resourceDescriptor{}}
	for _, b := range r.Environment.Binaries {
		if b.Name == "argocd" && b.SHA256 != "" {
			st.Subject = append(st.Subject, resourceDescriptor{Name: "argocd " + b.Version, Digest: map[string]string{"sha256": b.SHA256}})
		}
	}
	for _, p := range r.Subject.Plugins {
		if p.ConfigSHA256 != "" {
			st.Subject = append(st.Subject, resourceDescriptor{Name: p.Name + "/plugin.yaml", Digest: map[string]string{"sha256": p.ConfigSHA256}})
		}
		if d, ok := strings.CutPrefix(p.ImageID, "sha256:"); ok {
			st.Subject = append(st.Subject, resourceDescriptor{Name: p.Name + "/image " + p.Image, Digest: map[string]string{"sha256": d}})
		}
		for _, prog := range p.Programs {
			if prog.SHA256 != "" {
				st.Subject = append(st.Subject, resourceDescriptor{Name: p.Name + "/" + prog.Name, Digest: map[string]string{"sha256": prog.SHA256}})
			}
		}
	}
	sum := sha256.Sum256(reportJSON)
	cfg := []resourceDescriptor{{Name: ReportJSON, Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}}
	if h := r.Metadata.Harness; h != nil {
		d := resourceDescriptor{Name: "cmp-conformance " + h.Version, URI: h.Module}
		if h.SHA256 != "" {
			d.Digest = map[string]string{"sha256": h.SHA256}
		}
		if h.Revision != "" {
			d.URI += "@" + h.Revision
		}
		cfg = append(cfg, d)
	}
	tr := testResult{Configuration: cfg, PassedTests: []string{}, WarnedTests: []string{}, FailedTests: []string{}}
	for _, res := range r.Results {
		id := junitID(res.ID, res.Hop)
		switch {
		case res.State == v1alpha1.StatePassed:
			tr.PassedTests = append(tr.PassedTests, id)
		case res.State == v1alpha1.StateFailed && res.Level == v1alpha1.LevelProvisional:
			tr.WarnedTests = append(tr.WarnedTests, id)
		case res.State == v1alpha1.StateFailed:
			tr.FailedTests = append(tr.FailedTests, id)
		case res.Level == v1alpha1.LevelCore && (res.State == v1alpha1.StateSkipped || res.State == v1alpha1.StateNotSupported):
			tr.WarnedTests = append(tr.WarnedTests, id)
		}
	}
	switch r.Summary.Verdict {
	case v1alpha1.VerdictPassed:
		tr.Result = "PASSED"
	case v1alpha1.VerdictFailed:
		tr.Result = "FAILED"
	default:
		tr.Result = "WARNED"
	}
	st.Predicate = tr
	out, err := json.MarshalIndent(st, "", "  ")
	return append(out, '\n'), err
}
