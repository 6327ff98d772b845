package target

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatrooms/conformance/suites/client"
)

// Discover fills in what the description left out: each user's id and
// username (by Preflight, which it runs first unless it already ran), a room
// of each kind for user 1, and a write room shared by users 1 and 2. Errors
// are those of Preflight; after it, only a target that cannot be reached (a
// *client.TransportError) or keeps refusing (*client.UnavailableError) ends
// discovery: room lists that fail or do not decode leave hints empty, and
// the checks report the broken list. Discovery never blames the description
// for what the server does.
func (d *Description) Discover(ctx context.Context, c *client.Client) error {
	if !d.preflighted {
		if err := d.Preflight(ctx, c); err != nil {
			return err
		}
	}
	h := d.Rooms
	if h.OneToOne != "" && h.Org != "" && h.Repo != "" && h.Channel != "" && d.WriteRoom != "" {
		return nil
	}
	rooms, err := d.roomsOf(ctx, c, 0)
	if err != nil {
		return err
	}
	if d.Discovered == nil {
		d.Discovered = map[string]bool{}
	}
	pick := func(hint *string, key, kind string) {
		for _, r := range rooms {
			if *hint == "" && r.PlatformType == kind {
				*hint, d.Discovered[key] = r.ID, true
			}
		}
	}
	pick(&d.Rooms.OneToOne, "one_to_one", "ONETOONE")
	pick(&d.Rooms.Org, "org", "ORG")
	pick(&d.Rooms.Repo, "repo", "REPO")
	if d.Rooms.Channel == "" {
		var channels []roomRef
		err := getJSON(ctx, c, d.Users[0].Token, "/v1/user/"+d.Users[0].ID+"/channels", &channels)
		if noAnswer(err) {
			return err
		}
		if err == nil && len(channels) > 0 {
			d.Rooms.Channel, d.Discovered["channel"] = channels[0].ID, true
		}
	}
	if d.WriteRoom == "" {
		shared := rooms
		if len(d.Users) > 1 {
			other, err := d.roomsOf(ctx, c, 1)
			if err != nil {
				return err
			}
			shared = intersect(rooms, other)
		}
		// Prefer repository and organisation rooms, then channels.
		for _, kind := range []string{"REPO", "ORG", "USER_CHANNEL"} {
			for _, r := range shared {
				if d.WriteRoom == "" && r.PlatformType == kind && r.ID != d.HideRoom {
					d.WriteRoom, d.Discovered["write_room"] = r.ID, true
				}
			}
		}
	}
	return nil
}

type roomRef struct {
	ID           string `json:"id"`
	PlatformType string `json:"platformType"`
	OneToOne     bool   `json:"oneToOne"`
}

func (d *Description) roomsOf(ctx context.Context, c *client.Client, i int) ([]roomRef, error) {
	var rooms []roomRef
	err := getJSON(ctx, c, d.Users[i].Token, "/v1/user/"+d.Users[i].ID+"/rooms", &rooms)
	if noAnswer(err) {
		return nil, err
	}
	return rooms, nil // on any other error: no hints; the room checks will say why
}

func intersect(a, b []roomRef) []roomRef {
	in := map[string]bool{}
	for _, r := range b {
		in[r.ID] = true
	}
	var out []roomRef
	for _, r := range a {
		if in[r.ID] && !r.OneToOne {
			out = append(out, r)
		}
	}
	return out
}

func getJSON(ctx context.Context, c *client.Client, token, path string, v any) error {
	resp, err := c.Do(ctx, client.Request{Method: "GET", Path: path, Token: token})
	if err != nil {
		return err
	}
	if resp.Status != 200 {
		return fmt.Errorf("GET %s answered %d", path, resp.Status)
	}
	return resp.JSON(v)
}

// noAnswer reports whether err means the target gave nothing to judge.
func noAnswer(err error) bool {
	var te *client.TransportError
	var ue *client.UnavailableError
	return errors.As(err, &te) || errors.As(err, &ue)
}
