package model

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// FromTarget fills the users and rooms of cfg from a discovered target
// description: users 1 and 2 (who share the write room by the
// description's contract) and every other described user whose rooms list
// holds the write room; for each, a room of theirs besides the write room
// and the description's hide_room, to send requests through the wrong
// room. It only reads.
func FromTarget(ctx context.Context, c *client.Client, d *target.Description, cfg *Config) error {
	cfg.Client, cfg.WriteRoom = c, d.WriteRoom
	cfg.Users, cfg.OtherRooms = nil, nil
	for i, u := range d.Users {
		resp, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(u.ID) + "/rooms", Token: u.Token})
		if err != nil {
			return &TransportError{err}
		}
		var rooms []struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(resp.Body, &rooms)
		member, other := i < 2, ""
		for _, r := range rooms {
			switch {
			case r.ID == d.WriteRoom:
				member = true
			case other == "" && r.ID != d.HideRoom && r.ID != "":
				other = r.ID
			}
		}
		if member {
			cfg.Users = append(cfg.Users, User{ID: u.ID, Token: u.Token, Username: u.Username, Index: i})
			cfg.OtherRooms = append(cfg.OtherRooms, other)
		}
	}
	return nil
}
