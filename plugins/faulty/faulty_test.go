package faulty

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestModes(t *testing.T) {
	if got := Mode(`[{"name":"x","string":"y"},{"name":"mode","string":"fail"}]`); got != "fail" {
		t.Fatalf("Mode = %q", got)
	}
	var out, errOut bytes.Buffer
	if err := Announce("fail", &out, &errOut); err == nil || !strings.Contains(errOut.String(), FailMessage) {
		t.Fatalf("fail mode: err %v, stderr %q", err, errOut.String())
	}
	out.Reset()
	Announce("invalid-json", &out, &errOut)
	if json.Valid(out.Bytes()) {
		t.Fatalf("invalid-json mode printed valid JSON: %q", out.String())
	}
	out.Reset()
	Announce("nameless", &out, &errOut)
	var anns []map[string]any
	if err := json.Unmarshal(out.Bytes(), &anns); err != nil || len(anns) != 1 || anns[0]["name"] != nil {
		t.Fatalf("nameless mode: %v %q", err, out.String())
	}
	out.Reset()
	Announce("", &out, &errOut)
	if strings.TrimSpace(out.String()) != "[]" {
		t.Fatalf("default mode: %q", out.String())
	}
}
