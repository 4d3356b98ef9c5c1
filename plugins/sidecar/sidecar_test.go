package sidecar

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"sigs.k8s.io/yaml"
)

func appDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"), 0o644)
	for name, body := range map[string]string{"alpha": "replicas: \"1\"\n", "beta": "image: beta:1\n"} {
		os.MkdirAll(filepath.Join(dir, "components", name), 0o755)
		os.WriteFile(filepath.Join(dir, "components", name, "params.yaml"), []byte(body), 0o644)
	}
	return dir
}

// received decodes the ConfigMap generate appends.
func received(t *testing.T, out string) (map[string]string, string) {
	t.Helper()
	docs := strings.Split(out, "---\n")
	var cm struct {
		Metadata struct{ Name string }
		Data     map[string][]byte `json:"binaryData"`
	}
	if err := yaml.Unmarshal([]byte(docs[len(docs)-1]), &cm); err != nil || cm.Metadata.Name != ReceivedConfigMap {
		t.Fatalf("last document is not %s: %v\n%s", ReceivedConfigMap, err, out)
	}
	env := map[string]string{}
	if err := json.Unmarshal(cm.Data[KeyEnviron], &env); err != nil {
		t.Fatal(err)
	}
	return env, env["ARGOCD_APP_PARAMETERS"]
}

func TestGenerateRecordsWhatItReceivedByteExact(t *testing.T) {
	hostile := "$(touch /tmp/canary) `id` ; rm -rf / \n\"quoted\" 'single' \x01\x7f\u0085\u009f\u00ff\u2028\ufeff ünï 😀"
	environ := []string{
		"ARGOCD_APP_PARAMETERS=[{\"name\":\"a=b\",\"string\":\"x\"}]",
		"PARAM_HOSTILE=" + hostile,
		"PARAM_EMPTY=",
		"ARGOCD_ENV_FOO=bar=baz",
		"ARGOCD_APP_NAME=demo",
		"KUBE_VERSION=1.34.4",
		"HOME=/not/captured",
	}
	var out bytes.Buffer
	if err := Generate(appDir(t), environ, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "name: app") {
		t.Fatalf("the application's own manifests are missing:\n%s", out.String())
	}
	env, params := received(t, out.String())
	if env["PARAM_HOSTILE"] != hostile {
		t.Errorf("hostile value changed: %q", env["PARAM_HOSTILE"])
	}
	if v, ok := env["PARAM_EMPTY"]; !ok || v != "" {
		t.Errorf("empty value not recorded as present and empty: %q %v", v, ok)
	}
	if env["ARGOCD_ENV_FOO"] != "bar=baz" || env["ARGOCD_APP_NAME"] != "demo" || env["KUBE_VERSION"] != "1.34.4" {
		t.Errorf("build env not recorded: %v", env)
	}
	if _, ok := env["HOME"]; ok {
		t.Error("the sidecar's own environment must not be recorded")
	}
	if params != `[{"name":"a=b","string":"x"}]` {
		t.Errorf("ARGOCD_APP_PARAMETERS not recorded raw: %q", params)
	}
}

func announce(t *testing.T, environ []string) []Announcement {
	t.Helper()
	var out bytes.Buffer
	if err := Announce(appDir(t), environ, &out); err != nil {
		t.Fatal(err)
	}
	var anns []Announcement
	if err := json.Unmarshal(out.Bytes(), &anns); err != nil {
		t.Fatalf("announcement is not a JSON array: %v\n%s", err, out.String())
	}
	return anns
}

func TestAnnounceDerivesFromFolderAndParameters(t *testing.T) {
	anns := announce(t, nil)
	if len(anns) != 3 || anns[0].Name != "alpha-values" || anns[1].Name != "beta-values" || anns[2].Name != EchoAnnouncement {
		t.Fatalf("got %+v", anns)
	}
	if anns[0].CollectionType != "map" || anns[0].Map["replicas"] != "1" {
		t.Errorf("component defaults not announced: %+v", anns[0])
	}
	params := `[{"name":"ignore-components","array":["alpha"]}]`
	anns = announce(t, []string{"ARGOCD_APP_PARAMETERS=" + params})
	if len(anns) != 2 || anns[0].Name != "beta-values" {
		t.Fatalf("ignore-components did not remove alpha: %+v", anns)
	}
	if anns[1].String != params {
		t.Errorf("echo announcement = %q, want the raw parameters", anns[1].String)
	}
}

func TestAnnounceRejectsMalformedParameters(t *testing.T) {
	var out bytes.Buffer
	if err := Announce(appDir(t), []string{"ARGOCD_APP_PARAMETERS={not json"}, &out); err == nil {
		t.Fatal("malformed ARGOCD_APP_PARAMETERS must be an error")
	}
}

func TestEnvironKeepsEqualsAndNewlines(t *testing.T) {
	env := Environ([]string{"A=b=c", "B=line1\nline2", "C="})
	if env["A"] != "b=c" || env["B"] != "line1\nline2" || env["C"] != "" {
		t.Fatalf("got %q", env)
	}
}

// The record must survive Argo CD's own manifest parsing (gitops-engine
// SplitYAML: YAML to JSON, then that JSON parsed as YAML again) for any value.
func TestGenerateOutputParsesThroughArgoCD(t *testing.T) {
	for name, v := range map[string]string{
		"controls": "\x01\x1b[0m\x7f\u0085\u009f\u2028\u2029\ufeff",
		"astral":   "😀 \U0010fffd",
		"large":    strings.Repeat("0123456789 $(x) `y`\n", 64<<10/20),
	} {
		var out bytes.Buffer
		if err := Generate(appDir(t), []string{"PARAM_V=" + v, "ARGOCD_APP_PARAMETERS=[]"}, &out); err != nil {
			t.Fatal(err)
		}
		objs, err := kube.SplitYAML(out.Bytes())
		if err != nil {
			t.Fatalf("%s: Argo CD cannot parse the output: %v", name, err)
		}
		if len(objs) != 2 {
			t.Fatalf("%s: %d objects, want 2", name, len(objs))
		}
		if env, _ := received(t, out.String()); env["PARAM_V"] != v {
			t.Errorf("%s: value changed", name)
		}
	}
}
