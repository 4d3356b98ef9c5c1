package conformance

import (
	"strings"
	"testing"
)

func TestIntactValues(t *testing.T) {
	anns := []Announcement{
		{Name: "greeting", String: "hello"},
		{Name: "replicas", ItemType: "number", String: "1"},
		{Name: "tags", CollectionType: "array", Array: []string{"a"}},
		{Name: "labels", CollectionType: "map", Map: map[string]string{"team": "x"}},
	}
	set := intactValues(anns, nil, "cmpc-intact-1", false)
	if got := strings.Join(set.names(), ","); got != "greeting,tags,labels" {
		t.Errorf("judged %s: text parameters only", got)
	}
	params := set.params(nil)
	if len(params) != 3 || params[1].OptionalArray == nil || len(params[1].OptionalArray.Array) != 2 || params[2].OptionalMap.Map["team"] == "" {
		t.Errorf("params %+v", params)
	}
	// What the plugin shows: greeting and one tag; labels never.
	texts := []string{"hello " + set[0].value, "x" + set[1].value + "y", "unrelated"}
	shown := set.shownIn(texts)
	if got := strings.Join(shown.names(), ","); got != "greeting,tags" {
		t.Errorf("shown %s", got)
	}
	typed := intactValues(shown.announcements(), nil, "cmpc-intact-2", true)
	for _, v := range typed {
		if !strings.HasSuffix(v.value, typedTail) {
			t.Errorf("%s: %q is not typed", v.param, v.value)
		}
	}
	// A plugin that word-splits: only the first word arrives.
	split := []string{"cmpc-intact-2-0", "cmpc-intact-2-1", typed[2].value}
	lost := typed.lostIn(split)
	if len(lost) != 2 || !strings.Contains(lost[0], `greeting = "cmpc-intact-2-0 a b`) || !strings.Contains(lost[0], `arrived as "cmpc-intact-2-0"`) ||
		!strings.Contains(lost[1], "tags (item 0)") {
		t.Errorf("lost %q", lost)
	}
	if lost := typed.lostIn([]string{"pre " + typed[0].value, typed[1].value, typed[2].value}); len(lost) != 0 {
		t.Errorf("intact values reported lost: %q", lost)
	}
}

func TestTextsOf(t *testing.T) {
	got := textsOf([]string{`{"kind":"ConfigMap","data":{"k":"v \"q\"\n"}}`, "kind: Secret\nstringData:\n  a: |\n    line\n"})
	want := map[string]bool{"ConfigMap": true, "k": true, "v \"q\"\n": true, "Secret": true, "line\n": true}
	for w := range want {
		if !strings.Contains(strings.Join(got, "\x00")+"\x00", w+"\x00") {
			t.Errorf("texts %q lack %q", got, w)
		}
	}
}

func TestBrokeOutput(t *testing.T) {
	if !brokeOutput.MatchString("rpc error: code = Unknown desc = failed to convert CMP manifests to unstructured objects: error converting YAML to JSON: yaml: line 7: mapping values are not allowed in this context") {
		t.Error("an output Argo CD cannot read")
	}
	if brokeOutput.MatchString("error generating manifests in cmp: `sh render.sh` failed exit status 1: render.sh: replicas must be a number") {
		t.Error("the plugin's own refusal")
	}
}
