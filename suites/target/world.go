package target

import "github.com/chatrooms/conformance/fixtures"

// FromWorld describes a seeded world served at baseURL: its users with
// their tokens and ids, and the rooms the world marks for the checks.
func FromWorld(w *fixtures.World, baseURL string) *Description {
	d := &Description{BaseURL: baseURL, WriteRoom: w.Hints.WriteRoom, HideRoom: w.Hints.HideRoom,
		Rooms: RoomHints{Org: w.Hints.Org, Repo: w.Hints.Repo, Channel: w.Hints.Channel, OneToOne: w.Hints.OneToOne}}
	ownsPrivate := map[string]bool{}
	for _, r := range w.Repos {
		if r.Private {
			for _, m := range r.Members {
				ownsPrivate[m] = true
			}
		}
	}
	for _, u := range w.Users {
		// true promises a private repository to see (see README); a user
		// who granted access but has none makes no promise either way.
		var granted *bool
		switch {
		case !u.PrivateReposGranted:
			granted = new(false)
		case ownsPrivate[u.ID]:
			granted = new(true)
		}
		d.Users = append(d.Users, User{Name: u.Username, Token: u.Token, ID: u.ID, Username: u.Username, PrivateReposGranted: granted})
	}
	return d
}
