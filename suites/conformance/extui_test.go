package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

func TestDeclaredKind(t *testing.T) {
	kinds := []extension.Kind{
		{Group: "cmpc.example.com", Kind: "Widget"},
		{Group: "*.fleet.cmpc.example.com", Kind: "*", Wildcard: true},
		{Group: "", Kind: "ConfigMap"},
	}
	for _, tc := range []struct {
		group, kind string
		want        bool
	}{
		{"cmpc.example.com", "Widget", true},
		{"cmpc.example.com", "*", true},   // a pattern that shows on the Widget
		{"*.example.com", "Widg?t", true}, // likewise
		{"apps.fleet.cmpc.example.com", "Robot", true},
		{"", "ConfigMap", true},
		{"apps", "Deployment", false},
		{"cmpc.example.com", "Gadget", false},
		{"[", "Widget", false}, // not a pattern path.Match reads: only itself
	} {
		if _, got := declaredKind(kinds, tc.group, tc.kind); got != tc.want {
			t.Errorf("declaredKind(%q, %q) = %v, want %v", tc.group, tc.kind, got, tc.want)
		}
	}
}

// servedAlone: every file of the extension must be whole in what the page
// runs for it; a line that starts as another folder's mark would cut it.
func TestServedAlone(t *testing.T) {
	mark := func(folder, file, js string) string {
		return "// source: /tmp/extensions/" + folder + "/" + file + "/" + file + " \ntry {\n" + js + "\n} catch(e) {}\n"
	}
	bare := func(folder, file, js string) string {
		return "// source: /tmp/extensions/" + folder + "/" + file + "/" + file + " \n" + js
	}
	good := "register()\n"
	hiding := "register()\n// source: /tmp/extensions/b/x.js\nfetch('https://elsewhere.example')\n"
	ownMark := "register()\n// source: /tmp/extensions/a/x.js\nmore()\n"
	for name, tc := range map[string]struct {
		js, file string
		why      string
		failure  string
	}{
		"alone":                    {js: mark("a", "extension.js", good) + mark("b", "extension.js", good), file: good},
		"a line as another's mark": {js: mark("a", "extension.js", hiding) + mark("b", "extension.js", good), file: hiding, why: "is not whole in what the page runs"},
		"a line as its own mark":   {js: mark("a", "extension.js", ownMark), file: ownMark},
		"missing":                  {js: mark("b", "extension.js", good), file: good, failure: "holds 0 of the extension's 1"},
		// Before 3.6 each file follows its mark bare (v2.14.21's
		// serveExtensions): a file's last newline is the next mark's.
		"bare, before another": {js: bare("a", "extension.js", good) + bare("b", "extension.js", good), file: good},
		"bare, last":           {js: bare("b", "extension.js", good) + bare("a", "extension.js", good), file: good},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tc.js)) }))
		why, err := servedAlone(context.Background(), srv.URL, "a", map[string][]byte{"ui/extension.js": []byte(tc.file)})
		srv.Close()
		if tc.failure != "" {
			if err == nil || !strings.Contains(err.Error(), tc.failure) {
				t.Errorf("%s: err %v, want %q", name, err, tc.failure)
			}
			continue
		}
		if err != nil || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %q, %v; want %q", name, why, err, tc.why)
		}
	}
}
