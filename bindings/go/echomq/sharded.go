package echomq

import (
	"context"
	"strconv"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// ShardsMax is the largest shard count of a sharded queue.
const ShardsMax = 256

// CreateSharded creates queue name as a sharded queue over shards shard
// queues (1..ShardsMax), or opens it when it exists with that count, and
// returns it. A sharded queue is one hot queue spread over the primaries of
// a Valkey Cluster: a lane lives in the shard its group hashes to, and
// claims rotate over the shards. Every Queue method works on it by its name,
// from any client (Queue.Shards lists the shard queues). Safe to call from
// every process.
//
// Errors: ErrInvalid (a bad name or count, or a name too long for the shard
// suffix: nothing sent), ErrShards (sharded with another count, or a plain
// queue that holds jobs or lane settings: nothing changed), and the
// connection and server errors of any call.
func (c *Client) CreateSharded(ctx context.Context, name string, shards int) (*Queue, error) {
	q := c.Queue(name)
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if shards < 1 || shards > ShardsMax {
		return nil, invalid("shard count must be 1.." + strconv.Itoa(ShardsMax))
	}
	_, err := c.do(ctx, func(h capi.Client) int { return capi.Shards_create(h, name, uint(shards)) })
	if failed(err) {
		return nil, err
	}
	return q, err // ErrUnconfirmed beside the queue: it was created
}

// Shards lists the shard queues of a sharded queue in shard order, read
// from the server; a plain queue has none (an empty slice).
func (q *Queue) Shards(ctx context.Context) ([]string, error) {
	names, err := q.report(ctx, func(h capi.Client, out []uint64) int { return capi.Shards(h, q.name, out) })
	if err == nil && names == nil {
		names = []string{}
	}
	return names, err
}
