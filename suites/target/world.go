package target

import "github.com/chatrooms/conformance/fixtures"

// FromWorld describes a seeded world served at baseURL: its users with
// their tokens and ids, and the rooms the world marks for the checks. Each
// room hint is there only when the world has such a room of user 1; a
// world whose shape asks for no hints (hints=off) names no rooms and no
// write room, leaving them to discovery, but still its room to hide.
func FromWorld(w *fixtures.World, baseURL string) *Description {
	d := &Description{BaseURL: baseURL, HideRoom: w.Hints.HideRoom}
	if !w.Shape.NoHints {
		d.WriteRoom = w.Hints.WriteRoom
		d.Rooms = RoomHints{Org: w.Hints.Org, Repo: w.Hints.Repo, Channel: w.Hints.Channel, OneToOne: w.Hints.OneToOne}
	}
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
