package main

import (
	"fmt"
	"strings"
)

func f(v float64) string {
	switch {
	case v >= 100:
		s := fmt.Sprintf("%.0f", v)
		for i := len(s) - 3; i > 0; i -= 3 { // thousands separators
			s = s[:i] + "," + s[i:]
		}
		return s
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func lower(b any) string {
	if b == true {
		return ">"
	}
	return ""
}

func fl(r result, k string) float64 { return r[k].(float64) }

// printTable prints one row per library; x = the first library's figure
// over the row's.
func printTable(results map[string]result, names []string) {
	b := results[names[0]]
	rows := [][]string{{"library", "drain j/s", "x", "CPU us/job", "x", "cmds/job", "bytes/job", "skew med/max",
		"quiet p50", "quiet p99", "quiet max", "p99 x", "heavy p50", "e j/s"}}
	for _, name := range names {
		r := results[name]
		row := []string{r["label"].(string)}
		if d, ok := r["drain"].(result); ok {
			bd := b["drain"].(result)
			row = append(row, f(fl(d, "jobs_per_s")), f(fl(bd, "jobs_per_s")/fl(d, "jobs_per_s")),
				f(fl(d, "cpu_us_per_job")), f(fl(bd, "cpu_us_per_job")/fl(d, "cpu_us_per_job")),
				f(fl(d, "commands_per_job")))
		} else {
			row = append(row, "-", "-", "-", "-", "-")
		}
		if m, ok := r["mem"].(result); ok {
			row = append(row, f(fl(m, "bytes_per_job")))
		} else {
			row = append(row, "-")
		}
		if s, ok := r["skew"].(result); ok {
			row = append(row, fmt.Sprintf("%s/%s", f(fl(s, "median")), f(fl(s, "max"))))
		} else {
			row = append(row, "-")
		}
		if e, ok := r["overload"].(result); ok {
			ratio := "-"
			if be, ok := b["overload"].(result); ok {
				ratio = fmt.Sprintf("%.4f", fl(be, "quiet_p99_ms")/fl(e, "quiet_p99_ms"))
				if e["p99_lower_bound"] == true {
					ratio = "<" + ratio
				}
			}
			unstarted := e["quiet_unstarted"].(int) > 0
			row = append(row, lower(e["p50_lower_bound"])+f(fl(e, "quiet_p50_ms")),
				lower(e["p99_lower_bound"])+f(fl(e, "quiet_p99_ms")), lower(unstarted)+f(fl(e, "quiet_max_ms")),
				ratio, f(fl(e, "heavy_p50_ms")), f(fl(e, "jobs_per_s")))
		} else {
			row = append(row, "-", "-", "-", "-", "-", "-")
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if i == 0 {
				cells[i] = c + strings.Repeat(" ", widths[i]-len(c))
			} else {
				cells[i] = strings.Repeat(" ", widths[i]-len(c)) + c
			}
		}
		fmt.Println(strings.Join(cells, "  "))
	}
}
