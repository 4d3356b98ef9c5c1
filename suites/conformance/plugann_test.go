package conformance

import (
	"strings"
	"testing"
)

func TestAnnouncementProblems(t *testing.T) {
	if p := AnnouncementProblems(StaticContract()); len(p) != 0 {
		t.Errorf("the reference contract is ill formed: %v", p)
	}
	for _, tt := range []struct {
		name string
		anns []Announcement
		want string
	}{
		{"nameless", []Announcement{{String: "x"}}, "has no name"},
		{"twice", []Announcement{{Name: "a"}, {Name: "a"}}, "a is announced twice"},
		{"array with a string", []Announcement{{Name: "a", CollectionType: "array", String: "x"}}, "collectionType array with a string"},
		{"map with an array", []Announcement{{Name: "a", CollectionType: "map", Array: []string{"x"}}}, "collectionType map with a string or array"},
		{"string with a map", []Announcement{{Name: "a", Map: map[string]string{"k": "v"}}}, `collectionType "" with an array or map`},
		{"unknown collection", []Announcement{{Name: "a", CollectionType: "list"}}, `collectionType "list" is not`},
		{"number", []Announcement{{Name: "a", ItemType: "number", String: "many"}}, `itemType number with the default "many"`},
		{"boolean", []Announcement{{Name: "a", ItemType: "boolean", Array: []string{"yes"}, CollectionType: "array"}}, `itemType boolean with the default "yes"`},
		{"unknown item", []Announcement{{Name: "a", ItemType: "date", String: "x"}}, `itemType "date" is not`},
	} {
		got := strings.Join(AnnouncementProblems(tt.anns), "; ")
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: problems %q, want one saying %q", tt.name, got, tt.want)
		}
	}
}

// PLUG-011 leaves to their checks only the canaries a check planted: a file
// of the same look that no check planted still counts against the plugin.
func TestWithoutPlanted(t *testing.T) {
	planted.Store("/tmp/cmpc-canary-planted", true)
	defer planted.Delete("/tmp/cmpc-canary-planted")
	rest, theirs := withoutPlanted([]string{"/tmp/cmpc-canary-planted", "/tmp/cmpc-canary-forged", "/etc/changed"})
	if strings.Join(theirs, ",") != "/tmp/cmpc-canary-planted" {
		t.Errorf("planted canaries %v, want the planted one only", theirs)
	}
	if strings.Join(rest, ",") != "/tmp/cmpc-canary-forged,/etc/changed" {
		t.Errorf("counted %v, want the unplanted canary-like file and the change", rest)
	}
}
