// A small workload on go-redis v9, the common Go client (go-ycsb's), for tests/test_server_clients.py:
// it connects as go-redis does by default (HELLO 3, then CLIENT SETINFO) or with -protocol 2,
// and runs strings, pipelines, a transaction, a YCSB-style hash record, expiry, SCAN and INFO
// against the server at -addr. Any error, or any reply other than the expected one, ends it
// with exit status 1 and a line saying what; on success it prints one JSON line of counts.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "goredis: "+format+"\n", args...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server host:port")
	protocol := flag.Int("protocol", 3, "RESP version go-redis asks for (2 or 3)")
	records := flag.Int("records", 500, "keys and hash records to write")
	flag.Parse()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *addr, Protocol: *protocol, ClientName: "smrlab-test", ReadTimeout: 30 * time.Second})
	defer rdb.Close()

	check("PING", rdb.Ping(ctx).Err())
	check("SET", rdb.Set(ctx, "go:a", "apple", 0).Err())
	if v, err := rdb.Get(ctx, "go:a").Result(); err != nil || v != "apple" {
		fail("GET go:a gave %q, %v", v, err)
	}
	if _, err := rdb.Get(ctx, "go:missing").Result(); err != redis.Nil {
		fail("GET of a missing key gave %v, not redis.Nil", err)
	}
	if n, err := rdb.Del(ctx, "go:a", "go:missing").Result(); err != nil || n != 1 {
		fail("DEL gave %d, %v", n, err)
	}

	// A pipeline: every SET, then every GET, sent together.
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < *records; i++ {
			p.Set(ctx, fmt.Sprintf("go:k%05d", i), fmt.Sprintf("v%d", i), 0)
		}
		return nil
	})
	check("pipelined SETs", err)
	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < *records; i++ {
			p.Get(ctx, fmt.Sprintf("go:k%05d", i))
		}
		return nil
	})
	check("pipelined GETs", err)
	for i, c := range cmds {
		if v := c.(*redis.StringCmd).Val(); v != fmt.Sprintf("v%d", i) {
			fail("pipelined GET %d gave %q", i, v)
		}
	}

	// A transaction (MULTI ... EXEC).
	var incr *redis.IntCmd
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "go:counter", "10", 0)
		p.IncrBy(ctx, "go:counter", 5)
		incr = p.Incr(ctx, "go:counter")
		return nil
	})
	check("transaction", err)
	if incr.Val() != 16 {
		fail("INCR in the transaction gave %d, not 16", incr.Val())
	}

	// YCSB's record: a hash of fields.
	fields := map[string]any{}
	for f := 0; f < 10; f++ {
		fields[fmt.Sprintf("field%d", f)] = strings.Repeat(string(rune('a'+f)), 100)
	}
	for i := 0; i < *records; i++ {
		check("HSET", rdb.HSet(ctx, fmt.Sprintf("go:user%05d", i), fields).Err())
	}
	all, err := rdb.HGetAll(ctx, "go:user00007").Result()
	check("HGETALL", err)
	if len(all) != 10 || all["field3"] != strings.Repeat("d", 100) {
		fail("HGETALL gave %d fields", len(all))
	}
	got, err := rdb.HMGet(ctx, "go:user00007", "field0", "nosuch").Result()
	check("HMGET", err)
	if got[0] != strings.Repeat("a", 100) || got[1] != nil {
		fail("HMGET gave %v", got)
	}

	check("EXPIRE", rdb.Expire(ctx, "go:user00000", time.Hour).Err())
	if ttl, err := rdb.TTL(ctx, "go:user00000").Result(); err != nil || ttl < 59*time.Minute || ttl > time.Hour {
		fail("TTL gave %v, %v", ttl, err)
	}
	if n, err := rdb.Exists(ctx, "go:user00000", "go:user00001", "go:nosuch").Result(); err != nil || n != 2 {
		fail("EXISTS gave %d, %v", n, err)
	}

	// SCAN over every hash record.
	scanned := 0
	iter := rdb.Scan(ctx, 0, "go:user*", 100).Iterator()
	for iter.Next(ctx) {
		scanned++
	}
	check("SCAN", iter.Err())
	if scanned != *records {
		fail("SCAN found %d records, not %d", scanned, *records)
	}

	info, err := rdb.Info(ctx, "server").Result()
	check("INFO", err)
	if !strings.Contains(info, "redis_version:") {
		fail("INFO has no redis_version")
	}
	name, err := rdb.ClientGetName(ctx).Result()
	check("CLIENT GETNAME", err)

	out, _ := json.Marshal(map[string]any{"protocol": *protocol, "scanned": scanned, "pipelined": len(cmds), "counter": incr.Val(), "name": name})
	fmt.Println(string(out))
}
