package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
)

// cmpServerSplit is what argocd-cmp-server does with a generate command's
// output: trim one trailing newline (runCommand), then split it into
// manifests (kube.SplitYAMLToString).
func cmpServerSplit(t *testing.T, out []byte) []string {
	t.Helper()
	ms, err := kube.SplitYAMLToString(bytes.TrimSuffix(out, []byte("\n")))
	if err != nil {
		t.Fatalf("split: %v", err)
	}
	return ms
}

// recordData returns the binaryData key of the record among manifests, and
// whether the record was there at all.
func recordData(t *testing.T, ms []string, name, key string) (string, bool) {
	t.Helper()
	for _, m := range ms {
		var cm struct {
			Metadata   struct{ Name string } `json:"metadata"`
			BinaryData map[string]string     `json:"binaryData"`
		}
		if err := json.Unmarshal([]byte(m), &cm); err != nil {
			t.Fatalf("manifest %q: %v", m, err)
		}
		if cm.Metadata.Name == name {
			return cm.BinaryData[key], true
		}
	}
	return "", false
}

// lineOf makes data whose base64 line ("  key: <base64>") is n bytes long
// (n - len(key) - 4 a multiple of 4: base64 writes 4 bytes per 3).
func lineOf(t *testing.T, key string, n int) []byte {
	b64 := n - len("  "+key+": ")
	if b64%4 != 0 {
		t.Fatalf("no base64 line of %d bytes with key %q", n, key)
	}
	return bytes.Repeat([]byte{'x'}, b64/4*3)
}

// A record survives Argo CD's splitter whatever its length, the lengths that
// make the base64 line a multiple of 4096 bytes included.
func TestRecordSurvivesArgoCDSplit(t *testing.T) {
	const key = "abc.json" // with "  " and ": ", 12 bytes: every multiple of 4 is a line length
	for n := 40; n < 3*4096+200; n += 4 {
		var out bytes.Buffer
		out.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\ndata:\n  a: b\n")
		data := lineOf(t, key, n)
		if err := Write(&out, "rec", key, data); err != nil {
			t.Fatal(err)
		}
		got, ok := recordData(t, cmpServerSplit(t, out.Bytes()), "rec", key)
		if !ok || got == "" {
			t.Fatalf("record with a %d-byte base64 line: present %v, binaryData %q: lost in the split", n, ok, clip(got))
		}
	}
}

// Without the blank line, the stock splitter drops the record's binaryData
// when its line is 4096 bytes long: the reason Write ends with one. When this
// test fails, the splitter Argo CD links no longer has the bug (see
// docs/decisions.md, "A blank line after the record").
func TestSplitterDropsAFinal4096ByteLine(t *testing.T) {
	const key = "abc.json" // with "  " and ": ", 12 bytes: every multiple of 4 is a line length
	for _, n := range []int{4096, 8192} {
		var out bytes.Buffer
		Write(&out, "rec", key, lineOf(t, key, n))
		unterminated := strings.TrimSuffix(out.String(), "\n") // as a writer without the blank line
		got, ok := recordData(t, cmpServerSplit(t, []byte(unterminated)), "rec", key)
		if !ok || got != "" {
			t.Fatalf("%d-byte final line: present %v, binaryData of %d bytes: the splitter kept it", n, ok, len(got))
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
