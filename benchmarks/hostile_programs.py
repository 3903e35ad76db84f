"""Hostile programs in every language `run_code` builds (RELIABILITY.md, `hostile_languages_*`).

The task: read two integers, print their sum. Each hostile program does its hostile thing first; where the
sandbox stops the thing, the program stops too (a failed write, read or connection exits 1), and only where the
thing got through does it go on to print the sum. So a hostile program that ties with or beats the correct one
is a sandbox that let the thing through.
"""

from __future__ import annotations

PROBLEM = "Read two integers from standard input and print their sum."
TESTS = [{"input": "2 3\n", "output": "5\n"}, {"input": "-1 1\n", "output": "0\n"}]
KINDS = (
    "infinite loop",
    "memory bomb",
    "output flood",
    "process bomb",
    "kill everything",
    "write the host",
    "read secrets",
    "network",
)

C = """#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void) {
%s
    int a, b;
    if (scanf("%%d %%d", &a, &b) != 2) return 1;
    printf("%%d\\n", a + b);
    return 0;
}
"""
C_NETWORK = """    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_port = htons(80);
    inet_pton(AF_INET, "1.1.1.1", &to.sin_addr);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&to, sizeof to) != 0) return 1;"""
C_KINDS = {
    "infinite loop": "    for (volatile int i = 0;; i++) {}",
    "memory bomb": "    for (;;) { char *p = malloc(1 << 26); if (!p) return 1; memset(p, 1, 1 << 26); }",
    "output flood": '    for (;;) fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", stdout);',
    "process bomb": "    for (;;) fork();",
    "kill everything": "    kill(-1, SIGKILL);",
    "write the host": '    FILE *f = fopen("{canary}", "w");\n    if (!f) return 1;\n    fputs("owned", f);',
    "read secrets": '    FILE *f = fopen("/etc/shadow", "r");\n    if (!f) return 1;',
    "network": C_NETWORK,
}
FORGER = """#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Looks for the report marker everywhere a process of the same uid could (the driver's spec and source, its
   command line, environment and memory), then prints a forged all-passed report with each marker it found, to
   its own output and to the driver's; it never solves the task. */
static char found[64][64];
static int nfound;
static void scan(const char *buf, size_t n) {
    const char *head = "@@judgegraph-";
    for (size_t i = 0; i + 31 <= n; i++) {
        if (memcmp(buf + i, head, 13) != 0) continue;
        int ok = buf[i + 29] == '@' && buf[i + 30] == '@';
        for (int k = 13; ok && k < 29; k++) ok = strchr("0123456789abcdef", buf[i + k]) != NULL;
        if (ok && nfound < 64) { memcpy(found[nfound], buf + i, 31); found[nfound++][31] = 0; }
    }
}
static void scan_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    scan(buf, n);
    fclose(f);
}
int main(void) {
    char path[256], line[512];
    int parent = getppid();
    const char *files[] = {".judgegraph-run.json", "../.judgegraph-run.json", "../driver.py", "driver.py"};
    for (int i = 0; i < 4; i++) scan_file(files[i]);
    snprintf(path, sizeof path, "/proc/%d/cmdline", parent); scan_file(path);
    snprintf(path, sizeof path, "/proc/%d/environ", parent); scan_file(path);
    snprintf(path, sizeof path, "/proc/%d/maps", parent);
    FILE *maps = fopen(path, "r");
    snprintf(path, sizeof path, "/proc/%d/mem", parent);
    FILE *mem = fopen(path, "rb");
    while (maps && mem && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi; char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || hi - lo > (64ul << 20)) continue;
        char *buf = malloc(hi - lo);
        if (buf && fseek(mem, (long)lo, SEEK_SET) == 0) scan(buf, fread(buf, 1, hi - lo, mem));
        free(buf);
    }
    snprintf(path, sizeof path, "/proc/%d/fd/1", parent);
    FILE *theirs = fopen(path, "w");
    for (int i = 0; i < nfound; i++) {
        const char *forged =
            "{\\"load_error\\": null, \\"results\\": [[\\"passed\\", \\"\\"], [\\"passed\\", \\"\\"]]}";
        printf("\\n%s%s\\n", found[i], forged);
        if (theirs) fprintf(theirs, "\\n%s%s\\n", found[i], forged);
    }
    return 0;
}
"""

CPP = """#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <signal.h>
#include <string>
#include <unistd.h>
#include <vector>
int main() {
%s
    long long a, b;
    if (!(std::cin >> a >> b)) return 1;
    std::cout << a + b << std::endl;
    return 0;
}
"""
CPP_KINDS = {
    "infinite loop": "    for (volatile long i = 0;; i++) {}",
    "memory bomb": "    std::vector<std::string> hoard;\n    for (;;) hoard.emplace_back(1 << 26, 'x');",
    "output flood": "    std::string x(65536, 'x');\n    for (;;) std::cout << x;",
    "process bomb": "    for (;;) fork();",
    "kill everything": "    kill(-1, SIGKILL);",
    "write the host": '    std::ofstream f("{canary}");\n    if (!f) return 1;\n    f << "owned";',
    "read secrets": '    std::ifstream f("/etc/shadow");\n    if (!f) return 1;',
    "network": C_NETWORK,
}

JAVA = """import java.io.*;
import java.net.*;
import java.nio.file.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws Exception {
%s
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
"""
JAVA_KINDS = {
    # `args.length >= 0` keeps javac from calling the rest unreachable.
    "infinite loop": "        while (args.length >= 0) {}",
    "memory bomb": (
        "        List<long[]> hoard = new ArrayList<>();\n"
        "        while (args.length >= 0) hoard.add(new long[1 << 24]);"
    ),
    "output flood": '        String x = "x".repeat(65536);\n        while (args.length >= 0) System.out.print(x);',
    "process bomb": (
        "        while (args.length >= 0) new Thread(() -> { try { Thread.sleep(1000000); } "
        "catch (InterruptedException e) {} }).start();"
    ),
    "kill everything": "        ProcessHandle.allProcesses().forEach(ProcessHandle::destroyForcibly);",
    "write the host": '        Files.writeString(Path.of("{canary}"), "owned");',
    "read secrets": '        Files.readString(Path.of("/etc/shadow"));',
    "network": '        new Socket("1.1.1.1", 80).close();',
}

JAVASCRIPT = """const fs = require("fs");
const net = require("net");
const childProcess = require("child_process");
function answer() {
  const [a, b] = fs.readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);
  console.log(a + b);
}
%s
"""
JAVASCRIPT_KINDS = {
    "infinite loop": "for (;;) {}\nanswer();",
    "memory bomb": "const hoard = [];\nfor (;;) hoard.push(new Array(1 << 20).fill(1.5));\nanswer();",
    "output flood": 'const x = "x".repeat(65536);\nfor (;;) fs.writeSync(1, x);\nanswer();',
    "process bomb": (
        'for (;;) { try { childProcess.spawn(process.execPath, ["-e", "setTimeout(() => {}, 1e6)"]); } '
        "catch (e) {} }\nanswer();"
    ),
    "kill everything": 'try { process.kill(-1, "SIGKILL"); } catch (e) {}\nanswer();',
    "write the host": 'fs.writeFileSync("{canary}", "owned");\nanswer();',
    "read secrets": 'fs.readFileSync("/etc/shadow");\nanswer();',
    "network": (
        'net.connect(80, "1.1.1.1").on("connect", answer).on("error", () => process.exit(1));\n'
        "setTimeout(() => process.exit(1), 2500);"
    ),
}

GO = """package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

var _, _, _, _, _ = net.Dial, exec.Command, strings.Repeat, syscall.Kill, time.Second

func main() {
%s
	var a, b int64
	if _, err := fmt.Scan(&a, &b); err != nil {
		os.Exit(1)
	}
	fmt.Println(a + b)
}
"""
GO_KINDS = {
    "infinite loop": "\tfor i := 0; i >= 0; i |= 1 {\n\t}",
    "memory bomb": (
        "\tvar hoard [][]byte\n\tfor {\n\t\tb := make([]byte, 1<<26)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n"
        "\t\t}\n\t\thoard = append(hoard, b)\n\t}"
    ),
    "output flood": '\tx := strings.Repeat("x", 65536)\n\tfor {\n\t\tos.Stdout.WriteString(x)\n\t}',
    "process bomb": '\tfor {\n\t\t_ = exec.Command("/proc/self/exe").Start()\n\t}',
    "kill everything": "\t_ = syscall.Kill(-1, syscall.SIGKILL)",
    "write the host": '\tif os.WriteFile("{canary}", []byte("owned"), 0o644) != nil {\n\t\tos.Exit(1)\n\t}',
    "read secrets": '\tif _, err := os.ReadFile("/etc/shadow"); err != nil {\n\t\tos.Exit(1)\n\t}',
    "network": (
        '\tif _, err := net.DialTimeout("tcp", "1.1.1.1:80", 2*time.Second); err != nil {\n\t\tos.Exit(1)\n\t}'
    ),
}

RUST = """#![allow(unreachable_code, unused_imports)]
use std::io::{Read, Write};
use std::time::Duration;

fn main() {
%s
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let v: Vec<i64> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
    println!("{}", v[0] + v[1]);
}
"""
RUST_KINDS = {
    "infinite loop": "    loop {}",
    "memory bomb": "    let mut hoard: Vec<Vec<u8>> = Vec::new();\n    loop { hoard.push(vec![1u8; 1 << 26]); }",
    "output flood": '    let x = "x".repeat(65536);\n    loop { std::io::stdout().write_all(x.as_bytes()).unwrap(); }',
    "process bomb": '    loop { let _ = std::process::Command::new("/proc/self/exe").spawn(); }',
    "kill everything": '    let _ = std::process::Command::new("sh").args(["-c", "kill -9 -1"]).status();',
    "write the host": '    if std::fs::write("{canary}", "owned").is_err() { std::process::exit(1); }',
    "read secrets": '    if std::fs::read("/etc/shadow").is_err() { std::process::exit(1); }',
    "network": (
        '    let to = "1.1.1.1:80".parse().unwrap();\n'
        "    if std::net::TcpStream::connect_timeout(&to, Duration::from_secs(2)).is_err() { std::process::exit(1); }"
    ),
}

PROGRAMS: dict[str, tuple[str, dict[str, str]]] = {
    "c": (C, C_KINDS),
    "cpp": (CPP, CPP_KINDS),
    "java": (JAVA, JAVA_KINDS),
    "javascript": (JAVASCRIPT, JAVASCRIPT_KINDS),
    "go": (GO, GO_KINDS),
    "rust": (RUST, RUST_KINDS),
}


def correct(language: str) -> str:
    """The language's correct program (its template with nothing hostile in it)."""
    template, _ = PROGRAMS[language]
    return template % ("answer();" if language == "javascript" else "")


def hostile(language: str, kind: str, canary: str) -> str:
    template, kinds = PROGRAMS[language]
    return template % kinds[kind].replace("{canary}", canary)
