"""Call examples run on answers in C, C++, Java, JavaScript, Go and Rust as LeetCode runs them (`tools/code/languages/`):
arguments written as the declared types, values read back, on both sandboxes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.tools import ToolServices
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.languages import ProgramLanguage
from tests._code_evidence import LEETCODE, TWO_SUM, _call, _fenced, scripted


def _calling(name: str) -> ProgramLanguage:
    """A compiled language's module, whose declarations and runners these tests read."""
    found = languages.get(name)
    assert isinstance(found, ProgramLanguage)
    return found


FOREIGN_ANSWERS = {
    "cpp": (
        "class Solution {\npublic:\n    vector<int> twoSum(vector<int>& nums, int target) {\n"
        "        unordered_map<int, int> seen;\n        for (int i = 0; i < (int)nums.size(); i++) {\n"
        "            if (seen.count(target - nums[i])) return {seen[target - nums[i]], i};\n"
        "            seen[nums[i]] = i;\n        }\n        return {};\n    }\n};"
    ),
    "java": (
        "public class Solution {\n    public int[] twoSum(int[] nums, int target) {\n"
        "        Map<Integer, Integer> seen = new HashMap<>();\n        for (int i = 0; i < nums.length; i++) {\n"
        "            if (seen.containsKey(target - nums[i])) return new int[]{seen.get(target - nums[i]), i};\n"
        "            seen.put(nums[i], i);\n        }\n        return new int[0];\n    }\n}"
    ),
    "javascript": (
        "var twoSum = function(nums, target) {\n    const seen = new Map();\n"
        "    for (let i = 0; i < nums.length; i++) {\n"
        "        if (seen.has(target - nums[i])) return [seen.get(target - nums[i]), i];\n"
        "        seen.set(nums[i], i);\n    }\n};"
    ),
}
"""Right answers to Two Sum as LeetCode's C++, Java and JavaScript starters shape them."""


def test_arguments_are_written_as_the_types_the_answer_declares() -> None:
    from judgegraph.tools.code.languages._values import param_types
    from judgegraph.tools.code.languages.cpp import _cpp_value
    from judgegraph.tools.code.languages.java import _java_value

    assert _cpp_value("vector<vector<char>>", [["a", "'"]]) == "{{'a', '\\''}}"  # braced: the local's type is written
    assert _cpp_value("long long", 5) == "5LL" and _cpp_value("double", 2) == "2.0" and _cpp_value("int", True) is None
    assert _cpp_value("string", 'a"b') == '"a\\"b"' and _cpp_value("TreeNode*", [1]) is None
    nested = (
        "new ArrayList<List<Integer>>(Arrays.<List<Integer>>asList(new ArrayList<Integer>(Arrays.<Integer>asList(1))))"
    )
    assert _java_value("List<List<Integer>>", [[1]]) == nested
    assert _java_value("int[][]", [[1, 2]]) == "new int[][]{new int[]{1, 2}}"
    assert _java_value("float", 1) == "1.0f" and _java_value("long", 3) == "3L" and _java_value("Map<K,V>", {}) is None
    code = "class Solution {\n    private void dfs(int i, int j) {}\n    public int count(int[] a) { if (a.length > 0) { return 1; } return 0; }\n}"
    assert _calling("cpp").methods(code) == {"dfs": 2, "count": 1}
    assert param_types("const vector<pair<int, int>>& edges, int n, final String s") == [
        "vector<pair<int, int>>",
        "int",
        "String",
    ]


GO_RUST_TWO_SUM = {
    "go": (
        "func twoSum(nums []int, target int) []int {\n    seen := map[int]int{}\n    for i, x := range nums {\n"
        "        if j, ok := seen[target-x]; ok {\n            return []int{j, i}\n        }\n        seen[x] = i\n"
        "    }\n    return nil\n}"
    ),
    "rust": (
        "use std::collections::HashMap;\n\nimpl Solution {\n"
        "    pub fn two_sum(nums: Vec<i32>, target: i32) -> Vec<i32> {\n        let mut seen = HashMap::new();\n"
        "        for (i, &x) in nums.iter().enumerate() {\n"
        "            if let Some(&j) = seen.get(&(target - x)) {\n                return vec![j as i32, i as i32];\n"
        "            }\n            seen.insert(x, i);\n        }\n        vec![]\n    }\n}"
    ),
}
"""Right answers to Two Sum as LeetCode's Go and Rust starters shape them (Rust's `two_sum`, snake_case)."""


SELF_PAIRED = {
    "cpp": [
        ("seen.count(target - nums[i])", "nums[i] * 2 == target || seen.count(target - nums[i])"),
        ("return {seen[target - nums[i]], i};", "return {nums[i] * 2 == target ? i : seen[target - nums[i]], i};"),
    ],
    "java": [
        ("seen.containsKey(target - nums[i])", "nums[i] * 2 == target || seen.containsKey(target - nums[i])"),
        (
            "new int[]{seen.get(target - nums[i]), i}",
            "new int[]{nums[i] * 2 == target ? i : seen.get(target - nums[i]), i}",
        ),
    ],
    "javascript": [("if (seen.has(", "if (nums[i] * 2 == target) return [i, i];\n        if (seen.has(")],
    "go": [
        (
            "if j, ok := seen[target-x]; ok {",
            "if x*2 == target {\n            return []int{i, i}\n        }\n        if j, ok := seen[target-x]; ok {",
        )
    ],
    "rust": [
        (
            "if let Some(&j)",
            "if x * 2 == target {\n                return vec![i as i32, i as i32];\n            }\n            if let Some(&j)",
        )
    ],
}
"""What turns each right answer into a wrong one that pairs an element with itself: [3,2,4], 6 gives [0,0]."""


@pytest.mark.parametrize("language", ["cpp", "java", "javascript", "go", "rust"])
async def test_call_examples_run_on_answers_in_other_languages(services: ToolServices, language: str) -> None:
    """LeetCode's examples run on an answer in another language as the site runs it: its environment's headers
    and imports, the arguments built as the method's declared types (Go's function, Rust's `Solution::two_sum`
    for the statement's `twoSum`), the value printed back as data; the wrong one fails the second example."""
    right = {**FOREIGN_ANSWERS, **GO_RUST_TWO_SUM}[language]
    wrong = right
    for old, new in SELF_PAIRED[language]:
        assert old in wrong
        wrong = wrong.replace(old, new)
    if language == "go":  # a whole program: its main is not the answer's
        right = (
            f'package main\n\nimport "fmt"\n\n{right}\n\nfunc main() {{\n    fmt.Println(twoSum([]int{{1, 2}}, 3))\n}}'
        )
    request = {"prompt": TWO_SUM, "candidates": [_fenced(right, language), _fenced(wrong, language)]}
    r0, r1 = [await _call(services, request, "run_examples", candidate=i) for i in (0, 1)]
    assert r0.data and r0.data["failed"] == 0 and r0.data["decisive"] == 2, r0.text
    assert r0.data["target"].endswith("two_sum" if language == "rust" else "twoSum")
    assert r1.data and r1.data["failed"] == 1 and r1.data["cases"][1]["got"] == "[0, 0]", r1.text


@pytest.mark.parametrize(
    ("language", "answer"),
    [
        (
            "go",
            "func reverseString(s []byte) {\n    for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {\n        s[i], s[j] = s[j], s[i]\n    }\n}",
        ),
        ("rust", "impl Solution {\n    pub fn reverse_string(s: &mut Vec<char>) {\n        s.reverse();\n    }\n}"),
    ],
)
async def test_go_and_rust_in_place_answers_are_read_from_their_argument(
    services: ToolServices, language: str, answer: str
) -> None:
    """An in-place answer (`void`, Rust's `&mut`) is read from its first argument; Go's bytes print as the
    characters the statement writes, not as numbers."""
    prompt = (
        'Reverse the string in place.\n\nExample 1:\nInput: s = ["h","e","l","l","o"]\nOutput: ["o","l","l","e","h"]\n'
    )
    r = await _call(
        services, {"prompt": prompt, "candidates": [_fenced(answer, language), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 0 and r.data["decisive"] == 1, r.text
    broken = answer.replace("}\n}", "\n}", 1) if language == "go" else answer.replace("s.reverse();", "s.reversed();")
    r = await _call(
        services, {"prompt": prompt, "candidates": [_fenced(broken, language), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 1 and "error" in (r.data["load_error"] or ""), r.text


def test_go_and_rust_arguments_are_written_as_declared() -> None:
    from judgegraph.tools.code.languages.go import _go_types, _go_value
    from judgegraph.tools.code.languages.rust import _rust_value, snake_case

    assert _go_types("a, b int, s string") == ["int", "int", "string"]
    assert _go_value("[][]int", [[1, 2], []]) == "[][]int{[]int{1, 2}, []int{}}"
    assert _go_value("[]byte", ["a", "'"]) == "[]byte{'a', '\\''}" and _go_value("int", 1.5) is None
    assert _go_value("string", "é\n") == '"é\\n"' and _go_value("map[int]int", {}) is None
    assert _rust_value("Vec<String>", ['a"b']) == 'vec![String::from("a\\"b")]'
    assert _rust_value("f64", 2) == "2.0" and _rust_value("i64", 3) == "3" and _rust_value("Option<i32>", 1) is None
    assert snake_case("twoSum") == "two_sum" and snake_case("maxArea2D") == "max_area2_d"
    rust = "impl Solution {\n    pub fn two_sum(nums: Vec<i32>, target: i32) -> Vec<i32> { vec![] }\n    fn get(&self) -> i32 { 0 }\n}"
    assert (
        _calling("rust").methods(rust) == {"two_sum": 2} and _calling("rust").method_for(rust, "twoSum", 2) == "two_sum"
    )
    assert _calling("go").methods(
        "func (h *Heap) Push(x int) {}\nfunc twoSum(a []int, t int) []int { return nil }"
    ) == {"twoSum": 2}


C_TWO_SUM = """/**
 * Note: The returned array must be malloced, assume caller calls free().
 */
int* twoSum(int* nums, int numsSize, int target, int* returnSize) {
    int* r = malloc(2 * sizeof(int));
    *returnSize = 2;
    for (int i = 0; i < numsSize; i++) {
        for (int j = i + 1; j < numsSize; j++) {
            if (nums[i] + nums[j] == target) { r[0] = i; r[1] = j; return r; }
        }
    }
    *returnSize = 0;
    return r;
}"""
"""A right answer to Two Sum as LeetCode's C starter shapes it: the array and its size, the result's length
returned through `returnSize`."""


async def test_call_examples_run_on_c_answers(services: ToolServices) -> None:
    """A C answer is called as LeetCode calls it: `nums` passed with `numsSize`, the returned array read for
    `*returnSize` elements; the wrong one (j from i) fails the second example."""
    wrong = C_TWO_SUM.replace("int j = i + 1;", "int j = i;")
    request = {"prompt": TWO_SUM, "candidates": [_fenced(C_TWO_SUM, "c"), _fenced(wrong, "c")]}
    r0, r1 = [await _call(services, request, "run_examples", candidate=i) for i in (0, 1)]
    assert r0.data and r0.data["language"] == "c" and r0.data["failed"] == 0 and r0.data["decisive"] == 2, r0.text
    assert r1.data and r1.data["failed"] == 1 and r1.data["cases"][1]["got"] == "[0, 0]", r1.text
    broken = C_TWO_SUM.replace("    *returnSize = 0;\n    return r;\n}", "    return r;\n")  # a brace never closed
    r = await _call(
        services, {"prompt": TWO_SUM, "candidates": [_fenced(broken, "c"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 2 and "error" in (r.data["load_error"] or ""), r.text


C_SHAPES = [
    (
        'Reverse the string in place.\n\nExample 1:\nInput: s = ["h","e","l","l","o"]\nOutput: ["o","l","l","e","h"]\n',
        "void reverseString(char* s, int sSize) {\n    for (int i = 0, j = sSize - 1; i < j; i++, j--) {\n"
        "        char t = s[i]; s[i] = s[j]; s[j] = t;\n    }\n}",
    ),
    (
        "Return the transpose of matrix.\n\nExample 1:\nInput: matrix = [[1,2,3],[4,5,6]]\nOutput: [[1,4],[2,5],[3,6]]\n",
        "int** transpose(int** matrix, int matrixSize, int* matrixColSize, int* returnSize, int** returnColumnSizes) {\n"
        "    int m = matrixSize, n = matrixColSize[0];\n    int** r = malloc(n * sizeof(int*));\n"
        "    *returnColumnSizes = malloc(n * sizeof(int));\n    *returnSize = n;\n    for (int j = 0; j < n; j++) {\n"
        "        r[j] = malloc(m * sizeof(int));\n        (*returnColumnSizes)[j] = m;\n"
        "        for (int i = 0; i < m; i++) r[j][i] = matrix[i][j];\n    }\n    return r;\n}",
    ),
    (
        'Find the longest common prefix.\n\nExample 1:\nInput: strs = ["flower","flow","flight"]\nOutput: "fl"\n\n'
        'Example 2:\nInput: strs = ["dog","racecar","car"]\nOutput: ""\n',
        "char* longestCommonPrefix(char** strs, int strsSize) {\n    static char buf[256];\n    int k = 0;\n"
        "    for (;; k++) {\n        char c = strs[0][k];\n        if (!c) break;\n"
        "        for (int i = 1; i < strsSize; i++) if (strs[i][k] != c) goto done;\n        buf[k] = c;\n    }\n"
        "done:\n    buf[k] = 0;\n    return buf;\n}",
    ),
    (
        "Is x a palindrome?\n\nExample 1:\nInput: x = 121\nOutput: true\n\nExample 2:\nInput: x = -121\nOutput: false\n",
        "bool isPalindrome(int x) {\n    if (x < 0) return false;\n    long long r = 0, y = x;\n"
        "    while (y) { r = r * 10 + y % 10; y /= 10; }\n    return r == x;\n}",
    ),
]


@pytest.mark.parametrize(("prompt", "answer"), C_SHAPES, ids=["in-place chars", "grid", "strings", "bool"])
async def test_c_answers_in_leetcodes_shapes(services: ToolServices, prompt: str, answer: str) -> None:
    """LeetCode's C shapes: a char array and its size changed in place, a grid with its rows' sizes in and out
    (`returnColumnSizes`), an array of strings, a string and a bool returned."""
    r = await _call(
        services, {"prompt": prompt, "candidates": [_fenced(answer, "c"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 0 and r.data["decisive"] == r.data["passed"] >= 1, r.text


def test_c_parameters_are_read_as_leetcode_declares_them() -> None:
    from judgegraph.tools.code.languages.c import _c_params, _c_string, _CParam

    params, returned = _c_params("int** grid, int gridSize, int* gridColSize, char* s, double x, int* returnSize") or (
        [],
        [],
    )
    assert params == [_CParam("grid", "int"), _CParam("string", "char"), _CParam("scalar", "double")]
    assert returned == ["returnSize"]
    assert _c_params("struct TreeNode* root") is None and _c_params("int* nums") is None  # a pointer with no size
    c = _calling("c")
    assert c.methods(C_TWO_SUM) == {"twoSum": 2} and c.method_for(C_TWO_SUM, None, 2) == "twoSum"
    assert _c_string('é"\\?') == '"\\303\\251\\"\\\\\\077"'  # bytes, quotes, backslashes, no trigraphs
    assert c.call_runner(C_TWO_SUM, "twoSum", [([1], 2.5)]) is None  # a real where an int is declared
    assert c.call_runner("int* f(int n) {\n    return 0;\n}", "f", [(1,)]) is None  # an array of unknown length


NON_FINITE = {
    "python": "class Solution:\n    def scaled(self, x: float) -> list[float]:\n        big = x * 1e308 * 10\n"
    "        return [big, -big, big - big]",
    "c": "double* scaled(double x, int* returnSize) {\n    double* r = malloc(3 * sizeof(double));\n"
    "    double big = x * 1e308 * 10;\n    r[0] = big; r[1] = -big; r[2] = big - big;\n    *returnSize = 3;\n"
    "    return r;\n}",
    "cpp": "class Solution {\npublic:\n    vector<double> scaled(double x) {\n        double big = x * 1e308 * 10;\n"
    "        return {big, -big, big - big};\n    }\n};",
    "java": "class Solution {\n    public double[] scaled(double x) {\n        double big = x * 1e308 * 10;\n"
    "        return new double[]{big, -big, big - big};\n    }\n}",
    "go": "func scaled(x float64) []float64 {\n    big := x * 1e308 * 10\n    return []float64{big, -big, big - big}\n}",
    "rust": "impl Solution {\n    pub fn scaled(x: f64) -> Vec<f64> {\n        let big = x * 1e308 * 10.0;\n"
    "        vec![big, -big, big - big]\n    }\n}",
    "javascript": "var scaled = function(x) {\n    const big = x * 1e308 * 10;\n    return [big, -big, big - big];\n};",
}


@pytest.mark.parametrize("language", list(NON_FINITE))
async def test_non_finite_reals_come_back_as_a_python_answers_do(services: ToolServices, language: str) -> None:
    """JSON has no infinity or NaN: every language prints the tokens Python's reader takes, so an answer that
    returns them is compared (before, the foreign languages printed null: `[None, None, None]`)."""
    prompt = "Return x scaled.\n\nExample 1:\nInput: x = 2.0\nOutput: [2.0]\n"
    request = {"prompt": prompt, "candidates": [_fenced(NON_FINITE[language], language), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and [c["got"] for c in r.data["cases"]] == ["[inf, -inf, nan]"], r.text
    assert r.data["failed"] == 1


async def test_call_examples_in_other_languages_inform_where_the_judge_cannot_call(services: ToolServices) -> None:
    """In place (`void`): the first argument as the call left it, whatever the answer printed. A method whose
    class the runner cannot build as LeetCode does (a constructor with arguments) informs; an answer that does
    not compile fails."""
    in_place = (
        "class Solution {\npublic:\n    void moveZeroes(vector<int>& nums) {\n        int k = 0;\n"
        "        for (int x : nums) if (x) nums[k++] = x;\n        while (k < (int)nums.size()) nums[k++] = 0;\n    }\n};"
    ).replace("int k = 0;", 'int k = 0; cout << "debug";')  # printed with no line break before the runner's report
    r = await _call(
        services, {"prompt": LEETCODE, "candidates": [_fenced(in_place, "cpp"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 0 and r.data["decisive"] == 2
    built = FOREIGN_ANSWERS["cpp"].replace("public:\n", "public:\n    Solution(int n) {}\n", 1)
    r = await _call(
        services, {"prompt": TWO_SUM, "candidates": [_fenced(built, "cpp"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 0 and r.data["decisive"] == 0, r.text
    assert all("did not build" in c["note"] for c in r.data["cases"])
    broken = FOREIGN_ANSWERS["cpp"].replace("return {};", "return {}")
    r = await _call(
        services, {"prompt": TWO_SUM, "candidates": [_fenced(broken, "cpp"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["failed"] == 2 and "error" in (r.data["load_error"] or "")
    tree = "class Solution {\npublic:\n    int maxDepth(TreeNode* root) {\n        return 0;\n    }\n};"
    prompt = "Example 1:\nInput: root = [3,9,20]\nOutput: 2\n"
    r = await _call(
        services, {"prompt": prompt, "candidates": [_fenced(tree, "cpp"), "x"]}, "run_examples", candidate=0
    )
    assert not r.ok and "does not write" in (r.error or "")


LARGEST = """Given an integer array nums, return its largest element.

Example 1:
Input: nums = [1,5,3]
Output: 5

Example 2:
Input: nums = [2,9]
Output: 9
"""


async def test_a_derived_oracle_settles_a_pair_in_another_language(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """One call path for every language: a C++ pair the examples do not separate (the wrong answer reads only the
    first two elements) is varied by differential testing and settled by the model's Python reference programs
    (two right, one wrong), the C++ answers called exactly as the examples call them."""
    right = (
        "class Solution {\npublic:\n    int largest(vector<int>& nums) {\n        int m = nums[0];\n"
        "        for (int x : nums) m = max(m, x);\n        return m;\n    }\n};"
    )
    wrong = right.replace("for (int x : nums) m = max(m, x);", "m = max(nums[0], nums[1]);")
    programs = itertools.cycle(["def largest(nums):\n    return max(nums)"] * 2 + ["def largest(nums):\n    return 0"])
    fake_openai.responder = scripted("reference solutions that a judge trusts", programs)
    pair = {"id": "max", "prompt": LARGEST, "candidates": [_fenced(wrong, "cpp"), _fenced(right, "cpp")], "label": 1}
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(pair)
    names = [r.name for r in t.tool_results()]
    assert names == ["run_examples", "run_examples", "differential_test", "oracle_check", "oracle_check"], names
    checks = {r.data["candidate"]: r.data for r in t.tool_results() if r.name == "oracle_check" and r.data}
    assert checks[0]["disagrees"] >= 1 and checks[1]["disagrees"] == 0, checks
    assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.decided_by == "evidence" and t.correct


def test_a_language_that_is_not_called_into_says_so() -> None:
    """A language that only runs programs (none such is registered: each of the seven is called) is refused with
    the list of those that are, not by a name check in a tool."""
    from judgegraph.tools.code.calls import NotCallable, calling

    class Programs:
        name = "awk"

    with pytest.raises(NotCallable, match=r"awk code, whose calls the judge does not run .*python"):
        calling(Programs())  # type: ignore[arg-type]


FORGED = '\\n{\\"value\\":null,\\"unprintable\\":\\"a set\\"}'
"""A report line as the runner writes one, saying the value cannot be compared (which would make the example
inform only), as a wrong answer would print it before ending the program."""

FORGERS = {
    "c": "int* twoSum(int* nums, int numsSize, int target, int* returnSize) {\n"
    f'    printf("{FORGED}\\n");\n    exit(0);\n}}',
    "cpp": "class Solution {\npublic:\n    vector<int> twoSum(vector<int>& nums, int target) {\n"
    f'        cout << "{FORGED}" << endl;\n        exit(0);\n    }}\n}};',
    "java": "class Solution {\n    public int[] twoSum(int[] nums, int target) {\n"
    f'        System.out.println("{FORGED}");\n        System.exit(0);\n        return null;\n    }}\n}}',
    "javascript": f'var twoSum = function(nums, target) {{\n    console.log("{FORGED}");\n    process.exit(0);\n}};',
    "go": 'import (\n\t"fmt"\n\t"os"\n)\n\nfunc twoSum(nums []int, target int) []int {\n'
    f'\tfmt.Println("{FORGED}")\n\tos.Exit(0)\n\treturn nil\n}}',
    "rust": "impl Solution {\n    pub fn two_sum(nums: Vec<i32>, target: i32) -> Vec<i32> {\n"
    f'        println!("{FORGED.replace("{", "{{").replace("}", "}}")}");\n        std::process::exit(0);\n    }}\n}}',
}


@pytest.mark.parametrize("language", list(FORGERS))
async def test_an_answer_cannot_write_the_runners_report(services: ToolServices, language: str) -> None:
    """The runner's report line starts with the build's token, which the answer cannot know: an answer that
    prints a report of its own (here one saying its value cannot be compared, which would make the examples
    inform only) and ends the program fails every example instead of escaping them."""
    request = {"prompt": TWO_SUM, "candidates": [_fenced(FORGERS[language], language), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text
    assert all("no result" in c["got"] for c in r.data["cases"]), r.text


CLASHING = {
    "cpp": "static int jg_string = 0;\n",
    "c": "static int jg_str = 0;\n",
    "java": "class JgMain {}\n",
}
"""A declaration of a name the runner's own helpers use (the runners are this project's public source)."""


@pytest.mark.parametrize("language", list(CLASHING))
async def test_an_answer_that_clashes_with_a_runner_name_fails(services: ToolServices, language: str) -> None:
    """A build that fails in the runner's lines because the answer declared one of the runner's names is the
    answer's doing (a wrong answer that broke the runner on purpose would otherwise make every example inform
    only)."""
    answer = {"c": C_TWO_SUM, **FOREIGN_ANSWERS}[language]
    request = {"prompt": TWO_SUM, "candidates": [_fenced(CLASHING[language] + answer, language), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text


@pytest.mark.parametrize(
    "ending",
    ["del Solution", "Solution = None", "globals().pop('Solution')"],
)
async def test_a_python_answer_that_removes_what_it_defines_fails(services: ToolServices, ending: str) -> None:
    """An answer that defines `Solution` and removes it before the calls: the judge read the definition, so a call
    that finds nothing is the answer's doing and fails (a function only the example names, which the answer never
    defines, informs only)."""
    wrong = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 0]\n" + ending + "\n"
    request = {"prompt": TWO_SUM, "candidates": [_fenced(wrong, "python"), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text


@pytest.mark.parametrize("module", ["ortools", "not_a_module_anywhere"])
async def test_a_wrong_answer_that_imports_a_module_the_sandbox_lacks_fails(
    services: ToolServices, module: str
) -> None:
    """A library contest judges install (ortools: AtCoder's) that this sandbox lacks fails the examples as any
    module the answer cannot import does: informing only, it let a wrong answer escape its examples."""
    wrong = f"import {module}\n\nclass Solution:\n    def twoSum(self, nums, target):\n        return [0, 0]\n"
    request = {"prompt": TWO_SUM, "candidates": [_fenced(wrong, "python"), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text


WRONG_JS = "var twoSum = function(nums, target) {\n    return [0, 0];\n};"
"""A wrong Two Sum in JavaScript: both examples fail it."""


@pytest.mark.parametrize(
    "tampering",
    [
        "Array.prototype.includes = () => false;",  # the runner's check says its value is not data
        "Object.getPrototypeOf = () => null; Array.isArray = () => false;",
        "Array.prototype.every = () => { throw new Error('no'); };",  # the check throws: no report at all
    ],
)
async def test_a_javascript_answer_that_tampers_with_the_runners_check_fails(
    services: ToolServices, tampering: str
) -> None:
    """JavaScript's builtins are the answer's to replace, the runner's check of its value among them: a wrong
    answer that makes the runner say its value is not data (which once made the examples inform only), or makes
    the check throw, fails every example."""
    request = {"prompt": TWO_SUM, "candidates": [_fenced(f"{tampering}\n{WRONG_JS}", "javascript"), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text


async def test_a_javascript_value_is_data_when_plain_and_fails_when_not(services: ToolServices) -> None:
    """A plain object compares as the statement's object does; a Set where the statement shows a list is not data,
    and fails (as LeetCode's own serializer would print it: not as the list)."""
    prompt = (
        'Count each letter of s.\n\nExample 1:\nInput: s = "aab"\nOutput: {"a": 2, "b": 1}\n\n'
        'Example 2:\nInput: s = "c"\nOutput: {"c": 1}\n'
    )
    counted = "var count = function(s) {\n    const c = {};\n    for (const x of s) c[x] = (c[x] || 0) + 1;\n    return c;\n};"
    r = await _call(
        services, {"prompt": prompt, "candidates": [_fenced(counted, "javascript"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 0, r.text
    as_set = "var twoSum = function(nums, target) {\n    return new Set([0, 1]);\n};"
    r = await _call(
        services, {"prompt": TWO_SUM, "candidates": [_fenced(as_set, "javascript"), "x"]}, "run_examples", candidate=0
    )
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text
    assert "not data" in r.data["cases"][0]["got"], r.text


@pytest.mark.parametrize("language", ["c", "cpp"])
async def test_an_answer_that_breaks_the_runner_with_a_macro_fails(services: ToolServices, language: str) -> None:
    """A macro reaches past the answer into the runner's lines: a build that then fails is the answer's doing,
    wherever the compiler reports it (a wrong answer that broke the runner on purpose would otherwise make every
    example inform only)."""
    answer = C_TWO_SUM if language == "c" else FOREIGN_ANSWERS["cpp"]
    broken = answer.replace("return r;\n}", "return r;\n}\n#define switch if").replace("};", "};\n#define switch if")
    request = {"prompt": TWO_SUM, "candidates": [_fenced(broken, language), "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text
