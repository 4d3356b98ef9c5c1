package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func TestAttestationStatesWhatWasTested(t *testing.T) {
	r := sampleReport()
	r.Environment.Binaries = append(r.Environment.Binaries, v1alpha1.Binary{Name: "argocd", Version: "v3.6.1", SHA256: "aa11", Source: "build", Path: "/c/argocd"})
	r.Subject.Plugins[0].Programs = []v1alpha1.Program{{Name: "cmp-plain", Path: "/bin/cmp-plain", SHA256: "bb22"}}
	r.Metadata.Harness = &v1alpha1.Harness{Module: "github.com/cmp-conformance/cmp-conformance", Version: "(devel)", GoVersion: "go1.26.8", Revision: "abc123", SHA256: "cc33"}
	Finalize(r)
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, AttestationFile))
	if err != nil {
		t.Fatal(err)
	}
	var st statement
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Type != "https://in-toto.io/Statement/v1" || st.PredicateType != "https://in-toto.io/attestation/test-result/v0.1" {
		t.Errorf("statement types = %q, %q", st.Type, st.PredicateType)
	}
	var subjects []string
	for _, s := range st.Subject {
		subjects = append(subjects, s.Name+"="+s.Digest["sha256"])
	}
	want := []string{"argocd v3.6.1=aa11", "my-plugin/plugin.yaml=feedbeef", "my-plugin/cmp-plain=bb22"}
	if !slices.Equal(subjects, want) {
		t.Errorf("subjects = %v, want %v", subjects, want)
	}
	report, _ := os.ReadFile(filepath.Join(dir, ReportJSON))
	sum := sha256.Sum256(report)
	if got := st.Predicate.Configuration[0]; got.Name != ReportJSON || got.Digest["sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("configuration[0] = %+v, want report.json with the digest of the file written", got)
	}
	if got := st.Predicate.Configuration[1].URI; got != "github.com/cmp-conformance/cmp-conformance@abc123" {
		t.Errorf("harness URI = %q", got)
	}
	p := st.Predicate
	if p.Result != "FAILED" || !slices.Equal(p.FailedTests, []string{"GEN-002"}) || !slices.Contains(p.WarnedTests, "ENV-001") || !slices.Contains(p.PassedTests, "GEN-001") {
		t.Errorf("predicate = %+v", p)
	}
}
