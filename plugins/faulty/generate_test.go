package faulty

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func appDir(t *testing.T, fault string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if fault != "" {
		if err := os.WriteFile(filepath.Join(dir, FaultFile), []byte(fault+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func generate(t *testing.T, fault string) (out string, hung, crashed bool, err error) {
	t.Helper()
	var b bytes.Buffer
	err = Generate(appDir(t, fault), &b, func() { hung = true }, func() { crashed = true })
	return b.String(), hung, crashed, err
}

func TestGenerateFaults(t *testing.T) {
	out, hung, crashed, err := generate(t, "")
	if err != nil || hung || crashed || strings.Count(out, "kind: ConfigMap") != 2 {
		t.Fatalf("no fault: %q %v %v %v", out, hung, crashed, err)
	}
	if out, hung, _, _ := generate(t, FaultHang); !hung || out != "" {
		t.Errorf("hang: hung %v, printed %q", hung, out)
	}
	if out, _, crashed, _ := generate(t, FaultCrash); !crashed || strings.Count(out, "kind: ConfigMap") != 1 {
		t.Errorf("crash: crashed %v after printing %q (want one resource first)", crashed, out)
	}
	if out, hung, crashed, err := generate(t, FaultEmpty); out != "" || hung || crashed || err != nil {
		t.Errorf("empty: printed %q (hung %v, crashed %v, err %v), want nothing and success", out, hung, crashed, err)
	}
	out, _, _, err = generate(t, FaultInvalidYAML)
	docs := strings.Split(out, "---\n")
	var obj map[string]any
	if err != nil || yaml.Unmarshal([]byte(docs[len(docs)-1]), &obj) == nil {
		t.Errorf("invalid-yaml: last document parses (err %v): %q", err, out)
	}
	// Over the limit the cmp-server is under, by one MiB: its environment's,
	// which the plugin inherits, else Argo CD's default of 100 MiB.
	t.Setenv(GRPCMaxSizeEnv, strconv.Itoa(GRPCMaxSizeMB))
	out, _, _, err = generate(t, FaultHuge)
	if want := (GRPCMaxSizeMB + 1) << 20; err != nil || len(out) < want || len(out) > want+1<<20 {
		t.Errorf("huge under %d MiB: %d bytes (err %v), want just over %d", GRPCMaxSizeMB, len(out), err, want)
	}
	for env, want := range map[string]int{"": 101 << 20, "junk": 101 << 20, "0": 101 << 20, "200": 201 << 20} {
		if got := HugeBytes(env); got != want {
			t.Errorf("HugeBytes(%q) = %d, want %d", env, got, want)
		}
	}
	if _, _, _, err := generate(t, "explode"); err == nil || !strings.Contains(err.Error(), "unknown fault") {
		t.Errorf("unknown fault: %v", err)
	}
}
