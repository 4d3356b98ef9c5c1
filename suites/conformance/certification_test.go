package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

func TestLoadCertification(t *testing.T) {
	head := "apiVersion: cmp-conformance.io/v1alpha1\nkind: Certification\n"
	tests := []struct {
		name, file, want string
	}{
		{name: "good", file: head + "samples:\n  - name: basic\n    path: samples/basic\n    env: [{name: A, value: b}]\n    access: ssh\n    healthyWithin: 2m\n    expect: {kinds: {ConfigMap: 1}, golden: golden.yaml}\nfailing: {path: samples/basic, error: 'no.*'}\nentrypoint: image\n"},
		{name: "not YAML", file: "samples: [", want: "does not parse"},
		{name: "unknown field", file: head + "sample: []\n", want: `unknown field "sample"`},
		{name: "wrong kind", file: "apiVersion: v1\nkind: ConfigMap\n", want: "want cmp-conformance.io/v1alpha1/Certification"},
		{name: "no samples", file: head, want: "samples is empty"},
		{name: "missing folder", file: head + "samples: [{name: a, path: nowhere}]\n", want: `samples[0].path "nowhere" is not a folder`},
		{name: "folder outside", file: head + "samples: [{name: a, path: ../x}]\n", want: "leaves the folder of the certification file"},
		{name: "absolute folder", file: head + "samples: [{name: a, path: /etc}]\n", want: "leaves the folder"},
		{name: "bad name", file: head + "samples: [{name: My_Sample, path: samples/basic}]\n", want: "lowercase"},
		{name: "same name twice", file: head + "samples: [{name: a, path: samples/basic}, {name: a, path: samples/basic}]\n", want: "used twice"},
		{name: "env twice", file: head + "samples: [{name: a, path: samples/basic, env: [{name: A}, {name: A}]}]\n", want: "env: every entry"},
		{name: "empty expect", file: head + "samples: [{name: a, path: samples/basic, expect: {}}]\n", want: "give golden, kinds or both"},
		{name: "golden missing", file: head + "samples: [{name: a, path: samples/basic, expect: {golden: none.yaml}}]\n", want: `golden "none.yaml" is not a file`},
		{name: "bad time budget", file: head + "samples: [{name: a, path: samples/basic}]\ntimeBudget: -1s\n", want: "timeBudget"},
		{name: "time budget not a duration", file: head + "samples: [{name: a, path: samples/basic}]\ntimeBudget: soon\n", want: "does not parse"},
		{name: "unknown access", file: head + "samples: [{name: a, path: samples/basic, access: ftp}]\n", want: `samples[0].access is "ftp": want https or ssh`},
		{name: "unknown entrypoint", file: head + "samples: [{name: a, path: samples/basic}]\nentrypoint: shell\n", want: `entrypoint "shell": give argocd`},
		{name: "operator status of a built-in kind", file: head + "samples: [{name: a, path: samples/basic, operatorStatus: [{apiVersion: apps/v1, kind: Deployment, status: {ready: 1}}]}]\n", want: "operatorStatus[0]: apps/v1 Deployment is served by Kubernetes' own controllers"},
		{name: "operator status without a version", file: head + "samples: [{name: a, path: samples/basic, operatorStatus: [{apiVersion: cert-manager.io, kind: Certificate, status: {a: 1}}]}]\n", want: "operatorStatus[0].apiVersion"},
		{name: "operator status without a kind", file: head + "samples: [{name: a, path: samples/basic, operatorStatus: [{apiVersion: cert-manager.io/v1, status: {a: 1}}]}]\n", want: "operatorStatus[0].kind"},
		{name: "empty operator status", file: head + "samples: [{name: a, path: samples/basic, operatorStatus: [{apiVersion: cert-manager.io/v1, kind: Certificate}]}]\n", want: "operatorStatus[0].status is empty"},
		{name: "healthy within nothing", file: head + "samples: [{name: a, path: samples/basic, healthyWithin: 0s}]\n", want: "samples[0].healthyWithin 0s: give a positive duration"},
		{name: "healthy within a day", file: head + "samples: [{name: a, path: samples/basic, healthyWithin: 24h}]\n", want: "up to 30m0s"},
		{name: "bad error pattern", file: head + "samples: [{name: a, path: samples/basic}]\nfailing: {path: samples/basic, error: 'a('}\n", want: "failing.error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "samples", "basic"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "golden.yaml"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "certify.yaml")
			if err := os.WriteFile(file, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadCertification(file)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Samples[0].HealthyBound(time.Minute); got != 2*time.Minute {
					t.Errorf("healthyWithin 2m bounds Healthy at %s", got)
				}
				if got := (Sample{}).HealthyBound(time.Minute); got != time.Minute {
					t.Errorf("no healthyWithin bounds Healthy at %s, want the runtime's 1m0s", got)
				}
				if got := c.Samples[0].GitAccess(); got != dsl.GitSSHRepository {
					t.Errorf("access ssh reads as %q", got)
				}
				if got := c.Claims(); len(got) != 2 {
					t.Errorf("claims %v, want ExpectedOutput and FailingSample", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	if _, err := LoadCertification(filepath.Join(t.TempDir(), "certify.yaml")); err == nil || !strings.Contains(err.Error(), "--init") {
		t.Errorf("a missing file: %v, want an error pointing at certify --init", err)
	}
}

// The starter certify --init writes must load once its sample folder exists.
func TestCertificationStarterLoads(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "samples", "basic"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "certify.yaml")
	if err := os.WriteFile(file, []byte(CertificationStarter), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCertification(file); err != nil {
		t.Fatal(err)
	}
}

func TestOperatorStatusMatches(t *testing.T) {
	cert := v1alpha1.ResourceStatus{Group: "cert-manager.io", Version: "v1", Kind: "Certificate", Name: "web"}
	for _, tt := range []struct {
		o    OperatorStatus
		want bool
	}{
		{OperatorStatus{APIVersion: "cert-manager.io/v1", Kind: "Certificate"}, true},
		{OperatorStatus{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Name: "web"}, true},
		{OperatorStatus{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Name: "api"}, false},
		{OperatorStatus{APIVersion: "cert-manager.io/v1alpha2", Kind: "Certificate"}, false},
		{OperatorStatus{APIVersion: "cert-manager.io/v1", Kind: "Issuer"}, false},
	} {
		if got := tt.o.Matches(cert); got != tt.want {
			t.Errorf("%+v matches %+v: %v, want %v", tt.o, cert, got, tt.want)
		}
	}
	if !(OperatorStatus{APIVersion: "v1", Kind: "ConfigMap"}).Matches(v1alpha1.ResourceStatus{Version: "v1", Kind: "ConfigMap"}) {
		t.Error("a core-group apiVersion does not match")
	}
}
