package bundled

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/target"
)

type room struct {
	ID           string `json:"id"`
	PlatformType string `json:"platformType"`
}

// The description of a shaped world tells the truth, read back from the
// running server: each room hint is in user 1's rooms list (and org, repo
// and channel hints in the list of their kind), the write room is a group
// room in the lists of users 1 and 2, the room to hide is user 1's, and
// private_repos_granted matches what each user's repositories list shows.
func TestShapedDescriptionsKeepTheirPromises(t *testing.T) {
	for _, text := range []string{
		"default",
		"users=2,repo=12:0",
		"users=3,granted=1,org=123:-,repo=12:40w,one=13:0h,chan=3:5t",
		"users=4,granted=24,org=12:30t,org=1234:5,repo=4:-p,repo=12:7po,repo=3:2p,repo=1:2p,one=14:1,one=23:9,chan=1:0h",
		"users=3,granted=123,hints=off,chan=12:2,one=12:3h,repo=3:1p",
	} {
		t.Run(text, func(t *testing.T) {
			shape, err := fixtures.ParseShape(text)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := StartShape(5, shape, reference.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			d := srv.Target
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
			if len(d.Users) != shape.Users {
				t.Fatalf("%d users described", len(d.Users))
			}
			c := client(t, d.CAFile)
			get := func(u int, list string, v any) {
				t.Helper()
				req, _ := http.NewRequest("GET", d.BaseURL+"/v1/user/"+d.Users[u].ID+"/"+list, nil)
				req.Header.Set("Authorization", "Bearer "+d.Users[u].Token)
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("user %d %s: %d", u+1, list, resp.StatusCode)
				}
				if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
					t.Fatal(err)
				}
			}
			var rooms, channels, theirs []room
			var orgs, repos []struct {
				Private bool  `json:"private"`
				Room    *room `json:"room"`
			}
			get(0, "rooms", &rooms)
			get(0, "channels", &channels)
			get(0, "orgs", &orgs)
			get(0, "repos", &repos)
			get(1, "rooms", &theirs)
			has := func(rs []room, id, kind string) bool {
				return slices.ContainsFunc(rs, func(r room) bool { return r.ID == id && (kind == "" || r.PlatformType == kind) })
			}
			embedded := func(id string, kind string) bool {
				var rs []room
				for _, e := range orgs {
					if e.Room != nil && kind == "ORG" {
						rs = append(rs, *e.Room)
					}
				}
				for _, e := range repos {
					if e.Room != nil && kind == "REPO" {
						rs = append(rs, *e.Room)
					}
				}
				return has(rs, id, kind)
			}
			h := d.Rooms
			for kind, id := range map[string]string{"ONETOONE": h.OneToOne, "ORG": h.Org, "REPO": h.Repo, "USER_CHANNEL": h.Channel} {
				if id != "" && !has(rooms, id, kind) {
					t.Errorf("hint %s %s is not in user 1's rooms list", kind, id)
				}
			}
			if h.Org != "" && !embedded(h.Org, "ORG") || h.Repo != "" && !embedded(h.Repo, "REPO") {
				t.Errorf("org hint %s or repo hint %s is not embedded in user 1's list", h.Org, h.Repo)
			}
			if h.Channel != "" && !has(channels, h.Channel, "") {
				t.Errorf("channel hint %s is not in user 1's channels list", h.Channel)
			}
			if w := d.WriteRoom; w != "" && (!has(rooms, w, "") || !has(theirs, w, "") || has(rooms, w, "ONETOONE")) {
				t.Errorf("write room %s is not a group room of users 1 and 2", w)
			}
			if (d.WriteRoom == "") != shape.NoHints || (h != target.RoomHints{} && shape.NoHints) {
				t.Errorf("hints=off %v, but write room %q and hints %+v", shape.NoHints, d.WriteRoom, h)
			}
			if d.HideRoom != "" && (!has(rooms, d.HideRoom, "") || d.HideRoom == d.WriteRoom) {
				t.Errorf("hide room %s is not a spare room of user 1", d.HideRoom)
			}
			for u, usr := range d.Users {
				if usr.PrivateReposGranted == nil {
					continue
				}
				var rs []struct {
					Private bool `json:"private"`
				}
				get(u, "repos", &rs)
				private := slices.ContainsFunc(rs, func(r struct {
					Private bool `json:"private"`
				}) bool {
					return r.Private
				})
				if private != *usr.PrivateReposGranted {
					t.Errorf("user %d: private_repos_granted %v, private repository listed %v", u+1, *usr.PrivateReposGranted, private)
				}
			}
		})
	}
}

func client(t *testing.T, caFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}
