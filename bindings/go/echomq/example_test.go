package echomq_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

func Example() {
	ctx := context.Background()
	c, err := echomq.Dial(ctx, "valkey://127.0.0.1:6379")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	q := c.Queue("emails")

	if _, err := q.Enqueue(ctx, "tenant-42", []byte("hello")); err != nil {
		log.Fatal(err)
	}
	job, err := q.Claim(ctx, 30*time.Second)
	switch {
	case errors.Is(err, echomq.ErrEmpty):
		return // nothing to do right now
	case err != nil:
		log.Fatal(err)
	}
	fmt.Printf("%s: %s\n", job.Group, job.Payload)
	if err := job.Ack(ctx); errors.Is(err, echomq.ErrStaleLease) {
		log.Print("lease lost: the job was delivered again")
	}
}

func ExampleWorker() {
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	w := &echomq.Worker{
		URL:         "valkey://127.0.0.1:6379",
		Queue:       "emails",
		Concurrency: 8,
		Weighted:    true, // lane weights apply
		Lease:       30 * time.Second,
		Handler: func(ctx context.Context, j *echomq.Job) error {
			fmt.Printf("sending %s for %s\n", j.Payload, j.Group)
			return nil // ack; an error fails the job
		},
	}
	if err := w.Run(ctx); err != nil {
		log.Fatal(err)
	}
}

func ExampleQueue_BClaim() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := echomq.Dial(ctx, "valkey://127.0.0.1:6379")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	job, err := c.Queue("emails").BClaim(ctx, time.Minute) // waits up to 5 s
	if errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	_ = job.Ack(ctx)
}
