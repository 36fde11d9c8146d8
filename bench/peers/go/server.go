package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// snap is the server's own figures: CPU seconds, calls per command, memory.
type snap struct {
	cpu   float64
	mem   float64
	calls map[string]float64
}

// Our INFO calls, and connection set-up, are not the libraries' work.
var skip = map[string]bool{"info": true, "ping": true, "select": true, "hello": true, "client": true,
	"auth": true, "flushall": true, "config": true}

func info(r *redis.Client, section string) map[string]string {
	text, err := r.Info(context.Background(), section).Result()
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

func num(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func takeSnap(r *redis.Client) snap {
	cpu := info(r, "cpu")
	s := snap{cpu: num(cpu["used_cpu_sys"]) + num(cpu["used_cpu_user"]),
		mem: num(info(r, "memory")["used_memory"]), calls: map[string]float64{}}
	for k, v := range info(r, "commandstats") {
		name := strings.TrimPrefix(k, "cmdstat_")
		if c, _, ok := strings.Cut(strings.TrimPrefix(v, "calls="), ","); ok {
			s.calls[name] = num(c)
		}
	}
	return s
}

// delta per job: server CPU µs, commands, memory bytes.
func delta(pre, post snap, jobs int) (cpuUs, cmds, mem float64) {
	n := 0.0
	for c, k := range post.calls {
		if !skip[c] {
			n += k - pre.calls[c]
		}
	}
	j := float64(jobs)
	return (post.cpu - pre.cpu) * 1e6 / j, n / j, (post.mem - pre.mem) / j
}
