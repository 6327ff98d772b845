package target

import "github.com/chatrooms/conformance/fixtures"

// FromWorld describes a seeded world served at baseURL: its users with
// their tokens and ids, and the rooms the world marks for the checks.
func FromWorld(w *fixtures.World, baseURL string) *Description {
	d := &Description{BaseURL: baseURL, WriteRoom: w.Hints.WriteRoom, HideRoom: w.Hints.HideRoom,
		Rooms: RoomHints{Org: w.Hints.Org, Repo: w.Hints.Repo, Channel: w.Hints.Channel, OneToOne: w.Hints.OneToOne}}
	for _, u := range w.Users {
		granted := u.PrivateReposGranted
		d.Users = append(d.Users, User{Name: u.Username, Token: u.Token, ID: u.ID, Username: u.Username, PrivateReposGranted: &granted})
	}
	return d
}
