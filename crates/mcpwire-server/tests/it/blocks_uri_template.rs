//! Tests of `mcpwire_server::uri_template`: RFC 6570 expansion, parse errors, and matching.

use mcpwire_server::uri_template::{
    MAX_MATCH_LEN, TemplateErrorKind, TemplateValue, UriTemplate, Variables,
};

/// The variables of RFC 6570 section 3.2 (`undef` is simply absent).
fn rfc_variables() -> Variables {
    let mut variables = Variables::new();
    let mut set = |name: &str, value: TemplateValue| {
        variables.insert(name.to_owned(), value);
    };
    set("count", vec!["one", "two", "three"].into());
    set("dom", vec!["example", "com"].into());
    set("dub", "me/too".into());
    set("hello", "Hello World!".into());
    set("half", "50%".into());
    set("var", "value".into());
    set("who", "fred".into());
    set("base", "http://example.com/home/".into());
    set("path", "/foo/bar".into());
    set("list", vec!["red", "green", "blue"].into());
    set(
        "keys",
        TemplateValue::Map(vec![
            ("semi".to_owned(), ";".to_owned()),
            ("dot".to_owned(), ".".to_owned()),
            ("comma".to_owned(), ",".to_owned()),
        ]),
    );
    set("v", "6".into());
    set("x", "1024".into());
    set("y", "768".into());
    set("empty", "".into());
    set("empty_keys", TemplateValue::Map(Vec::new()));
    variables
}

/// RFC 6570 sections 3.2.1 to 3.2.9, every example (maps in the order semi, dot, comma).
const RFC_6570_SECTION_3_EXAMPLES: &[(&str, &str)] = &[
    // 3.2.1 Variable Expansion
    ("{count}", "one,two,three"),
    ("{count*}", "one,two,three"),
    ("{/count}", "/one,two,three"),
    ("{/count*}", "/one/two/three"),
    ("{;count}", ";count=one,two,three"),
    ("{;count*}", ";count=one;count=two;count=three"),
    ("{?count}", "?count=one,two,three"),
    ("{?count*}", "?count=one&count=two&count=three"),
    ("{&count*}", "&count=one&count=two&count=three"),
    // 3.2.2 Simple String Expansion
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{half}", "50%25"),
    ("O{empty}X", "OX"),
    ("O{undef}X", "OX"),
    ("{x,y}", "1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("?{x,empty}", "?1024,"),
    ("?{x,undef}", "?1024"),
    ("?{undef,y}", "?768"),
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{keys}", "semi,%3B,dot,.,comma,%2C"),
    ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    // 3.2.3 Reserved Expansion
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+half}", "50%25"),
    ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
    ("{+base}index", "http://example.com/home/index"),
    ("O{+empty}X", "OX"),
    ("O{+undef}X", "OX"),
    ("{+path}/here", "/foo/bar/here"),
    ("{+path:6}/here", "/foo/b/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("up{+path}{var}/here", "up/foo/barvalue/here"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{+list}", "red,green,blue"),
    ("{+list*}", "red,green,blue"),
    ("{+keys}", "semi,;,dot,.,comma,,"),
    ("{+keys*}", "semi=;,dot=.,comma=,"),
    // 3.2.4 Fragment Expansion
    ("{#var}", "#value"),
    ("{#hello}", "#Hello%20World!"),
    ("{#half}", "#50%25"),
    ("foo{#empty}", "foo#"),
    ("foo{#undef}", "foo"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list}", "#red,green,blue"),
    ("{#list*}", "#red,green,blue"),
    ("{#keys}", "#semi,;,dot,.,comma,,"),
    ("{#keys*}", "#semi=;,dot=.,comma=,"),
    // 3.2.5 Label Expansion with Dot-Prefix
    ("{.who}", ".fred"),
    ("{.who,who}", ".fred.fred"),
    ("{.half,who}", ".50%25.fred"),
    ("www{.dom*}", "www.example.com"),
    ("X{.var}", "X.value"),
    ("X{.var:3}", "X.val"),
    ("X{.empty}", "X."),
    ("X{.undef}", "X"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
    ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
    ("X{.empty_keys}", "X"),
    ("X{.empty_keys*}", "X"),
    // 3.2.6 Path Segment Expansion
    ("{/who}", "/fred"),
    ("{/who,who}", "/fred/fred"),
    ("{/half,who}", "/50%25/fred"),
    ("{/who,dub}", "/fred/me%2Ftoo"),
    ("{/var}", "/value"),
    ("{/var,empty}", "/value/"),
    ("{/var,undef}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{/var:1,var}", "/v/value"),
    ("{/list}", "/red,green,blue"),
    ("{/list*}", "/red/green/blue"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
    ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    // 3.2.7 Path-Style Parameter Expansion
    ("{;who}", ";who=fred"),
    ("{;half}", ";half=50%25"),
    ("{;empty}", ";empty"),
    ("{;v,empty,who}", ";v=6;empty;who=fred"),
    ("{;v,bar,who}", ";v=6;who=fred"),
    ("{;x,y}", ";x=1024;y=768"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{;x,y,undef}", ";x=1024;y=768"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{;list*}", ";list=red;list=green;list=blue"),
    ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
    ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    // 3.2.8 Form-Style Query Expansion
    ("{?who}", "?who=fred"),
    ("{?half}", "?half=50%25"),
    ("{?x,y}", "?x=1024&y=768"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,y,undef}", "?x=1024&y=768"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
    ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    // 3.2.9 Form-Style Query Continuation
    ("{&who}", "&who=fred"),
    ("{&half}", "&half=50%25"),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
    ("{&list*}", "&list=red&list=green&list=blue"),
    ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
    ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
];

// A helper of the tests, where a template that fails to parse is a failed assertion.
#[allow(clippy::panic)]
#[track_caller]
fn template(text: &str) -> UriTemplate {
    UriTemplate::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
}

fn strings(pairs: &[(&str, &str)]) -> Variables {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), TemplateValue::from(*value)))
        .collect()
}

#[test]
fn expansion_matches_every_example_of_rfc_6570_section_3() {
    let variables = rfc_variables();
    for (text, expected) in RFC_6570_SECTION_3_EXAMPLES {
        assert_eq!(template(text).expand(&variables), *expected, "{text}");
    }
}

#[test]
fn expansion_encodes_non_ascii_literals_and_values_as_utf8() {
    let variables = strings(&[("name", "héllo")]);
    assert_eq!(
        template("café/{name}").expand(&variables),
        "caf%C3%A9/h%C3%A9llo"
    );
    assert_eq!(template("{name:2}").expand(&variables), "h%C3%A9");
}

#[test]
fn invalid_templates_are_refused_with_the_offending_offset() {
    let cases: &[(&str, usize, TemplateErrorKind)] = &[
        ("test://{id", 7, TemplateErrorKind::UnclosedExpression),
        ("a{b{c}}", 1, TemplateErrorKind::UnclosedExpression),
        ("a}b", 1, TemplateErrorKind::UnmatchedClosingBrace),
        ("x{}", 1, TemplateErrorKind::EmptyExpression),
        ("{=x}", 1, TemplateErrorKind::ReservedOperator('=')),
        ("{,x}", 1, TemplateErrorKind::ReservedOperator(',')),
        ("{!x}", 1, TemplateErrorKind::ReservedOperator('!')),
        ("{@x}", 1, TemplateErrorKind::ReservedOperator('@')),
        ("{|x}", 1, TemplateErrorKind::ReservedOperator('|')),
        (
            "{+}",
            2,
            TemplateErrorKind::InvalidVariableName(String::new()),
        ),
        (
            "{a,,b}",
            3,
            TemplateErrorKind::InvalidVariableName(String::new()),
        ),
        (
            "{a b}",
            1,
            TemplateErrorKind::InvalidVariableName("a b".to_owned()),
        ),
        (
            "{a-b}",
            1,
            TemplateErrorKind::InvalidVariableName("a-b".to_owned()),
        ),
        (
            "{.a.}",
            2,
            TemplateErrorKind::InvalidVariableName("a.".to_owned()),
        ),
        (
            "{a..b}",
            1,
            TemplateErrorKind::InvalidVariableName("a..b".to_owned()),
        ),
        (
            "{x,a%2}",
            3,
            TemplateErrorKind::InvalidVariableName("a%2".to_owned()),
        ),
        (
            "{a*:3}",
            1,
            TemplateErrorKind::InvalidVariableName("a*".to_owned()),
        ),
        (
            "{a:0}",
            3,
            TemplateErrorKind::InvalidPrefixLength("0".to_owned()),
        ),
        (
            "{a:07}",
            3,
            TemplateErrorKind::InvalidPrefixLength("07".to_owned()),
        ),
        (
            "{a:10000}",
            3,
            TemplateErrorKind::InvalidPrefixLength("10000".to_owned()),
        ),
        (
            "{a:}",
            3,
            TemplateErrorKind::InvalidPrefixLength(String::new()),
        ),
        (
            "{a:x}",
            3,
            TemplateErrorKind::InvalidPrefixLength("x".to_owned()),
        ),
        ("a b", 1, TemplateErrorKind::InvalidCharacter(' ')),
        ("a<b>", 1, TemplateErrorKind::InvalidCharacter('<')),
        ("it's", 2, TemplateErrorKind::InvalidCharacter('\'')),
        ("a\u{85}", 1, TemplateErrorKind::InvalidCharacter('\u{85}')),
        ("50%", 2, TemplateErrorKind::InvalidPercentEncoding),
        ("%zz", 0, TemplateErrorKind::InvalidPercentEncoding),
    ];
    for (text, offset, kind) in cases {
        let error = UriTemplate::parse(text).unwrap_err();
        assert_eq!((error.offset(), error.kind()), (*offset, kind), "{text}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("invalid URI template at byte {offset}: "))
        );
    }
}

#[test]
fn valid_level_4_syntax_parses() {
    for text in [
        "",
        "plain://no/expressions",
        "{a_b.c%20d}",
        "{a:9999}",
        "{+a,b*,c:1}",
        "x%2Fy{#a}",
        "ümlaut/{x}",
    ] {
        let parsed = template(text);
        assert_eq!(parsed.as_str(), text);
        assert_eq!(parsed.to_string(), text);
    }
    assert!(template("plain://no/expressions").is_fixed());
    assert!(!template("{x}").is_fixed());
    assert!("{x}".parse::<UriTemplate>().is_ok());
}

#[test]
fn variable_names_lists_each_name_once_in_template_order() {
    let parsed = template("repo://{owner}/{repo}{/path*}{?ref,owner}{&depth:2}");
    assert_eq!(
        parsed.variable_names(),
        ["owner", "repo", "path", "ref", "depth"]
    );
    assert!(template("fixed://x").variable_names().is_empty());
}

#[test]
fn matching_the_mcp_resource_template_example_yields_the_id() {
    let parsed = template("test://template/{id}/data");
    assert_eq!(
        parsed.match_uri("test://template/123/data"),
        Some(strings(&[("id", "123")]))
    );
    assert_eq!(
        parsed.match_uri("test://template//data"),
        Some(strings(&[("id", "")]))
    );
    for other in [
        "test://template/123/other",
        "test://template/12/3/data",
        "test://template/123/data/",
        "test://other/123/data",
        "",
    ] {
        assert_eq!(parsed.match_uri(other), None, "{other}");
    }
}

#[test]
fn matched_values_are_percent_decoded_and_must_be_utf8() {
    let parsed = template("file:///{name}");
    assert_eq!(
        parsed.match_uri("file:///hello%20w%C3%B6rld"),
        Some(strings(&[("name", "hello wörld")]))
    );
    assert_eq!(
        parsed.match_uri("file:///caf\u{e9}"),
        Some(strings(&[("name", "café")]))
    );
    assert_eq!(parsed.match_uri("file:///bad%zz"), None);
    assert_eq!(parsed.match_uri("file:///trailing%2"), None);
    assert_eq!(parsed.match_uri("file:///not-utf8%FF"), None);
}

#[test]
fn each_operator_matches_its_own_expansion_syntax() {
    let list =
        |items: &[&str]| TemplateValue::List(items.iter().map(|item| (*item).to_owned()).collect());
    let cases: Vec<(&str, &str, Variables)> = vec![
        (
            "file:///{+path}",
            "file:///a/b/c.txt",
            strings(&[("path", "a/b/c.txt")]),
        ),
        (
            "doc://{id}{#section}",
            "doc://7#intro%20part",
            strings(&[("id", "7"), ("section", "intro part")]),
        ),
        ("doc://{id}{#section}", "doc://7", strings(&[("id", "7")])),
        (
            "host://www{.labels*}",
            "host://www.example.com",
            [("labels".to_owned(), list(&["example", "com"]))].into(),
        ),
        (
            "fs:{/dir,name}",
            "fs:/docs/readme",
            strings(&[("dir", "docs"), ("name", "readme")]),
        ),
        ("fs:{/dir,name}", "fs:/docs", strings(&[("dir", "docs")])),
        (
            "fs:{/segments*}",
            "fs:/a/b/c",
            [("segments".to_owned(), list(&["a", "b", "c"]))].into(),
        ),
        (
            "fs:{/segments*,last}",
            "fs:/a/b/c",
            [
                ("segments".to_owned(), list(&["a", "b"])),
                ("last".to_owned(), "c".into()),
            ]
            .into(),
        ),
        (
            "map://here{;lat,long}",
            "map://here;long=2;lat=1",
            strings(&[("lat", "1"), ("long", "2")]),
        ),
        (
            "map://here{;flag}",
            "map://here;flag",
            strings(&[("flag", "")]),
        ),
        (
            "docs://{section}{?version,lang}",
            "docs://intro?lang=en&version=2",
            strings(&[("section", "intro"), ("lang", "en"), ("version", "2")]),
        ),
        (
            "docs://{section}{?version,lang}",
            "docs://intro",
            strings(&[("section", "intro")]),
        ),
        (
            "search://q{?tag*}",
            "search://q?tag=a&tag=b",
            [("tag".to_owned(), list(&["a", "b"]))].into(),
        ),
        (
            "search://q?fixed=1{&page}",
            "search://q?fixed=1&page=3",
            strings(&[("page", "3")]),
        ),
        (
            "list://{items}",
            "list://red,green,blue",
            strings(&[("items", "red,green,blue")]),
        ),
    ];
    for (text, uri, expected) in cases {
        assert_eq!(
            template(text).match_uri(uri),
            Some(expected),
            "{text} vs {uri}"
        );
    }
}

#[test]
fn query_parameters_the_template_does_not_name_do_not_match() {
    let parsed = template("docs://{section}{?version}");
    assert_eq!(parsed.match_uri("docs://intro?other=1"), None);
    assert_eq!(parsed.match_uri("docs://intro?version=1&version=2"), None);
    assert_eq!(parsed.match_uri("docs://intro?"), None);
}

#[test]
fn ambiguous_templates_resolve_as_documented() {
    // The earlier expression takes the longest text that still lets the rest match.
    assert_eq!(
        template("{a}-{b}").match_uri("x-y-z"),
        Some(strings(&[("a", "x-y"), ("b", "z")]))
    );
    assert_eq!(
        template("{+dir}/{file}").match_uri("a/b/c"),
        Some(strings(&[("dir", "a/b"), ("file", "c")]))
    );
    // A later query or fragment expression keeps `?` / `#` out of a reserved value.
    assert_eq!(
        template("file:///{+path}{?rev}").match_uri("file:///a/b?rev=2"),
        Some(strings(&[("path", "a/b"), ("rev", "2")]))
    );
    assert_eq!(
        template("file:///{+path}{#line}").match_uri("file:///a/b#L3"),
        Some(strings(&[("path", "a/b"), ("line", "L3")]))
    );
    // Without a later query expression, `?` belongs to the reserved value.
    assert_eq!(
        template("file:///{+path}").match_uri("file:///a?b"),
        Some(strings(&[("path", "a?b")]))
    );
    // The `.` starting the next label expression ends the value before it.
    assert_eq!(
        template("file://{name}{.ext}").match_uri("file://archive.tar.gz"),
        Some(strings(&[("name", "archive"), ("ext", "tar.gz")]))
    );
    // A multi-variable query expression followed by `{&...}` leaves it the parameters it names.
    assert_eq!(
        template("x{?a,b}{&c}").match_uri("x?a=1&b=2&c=3"),
        Some(strings(&[("a", "1"), ("b", "2"), ("c", "3")]))
    );
    assert_eq!(
        template("x{?a}{&c}").match_uri("x?a=1&c=3"),
        Some(strings(&[("a", "1"), ("c", "3")]))
    );
}

#[test]
fn a_path_expression_leaves_the_next_one_its_segment() {
    // Issue 17: the longest split read `/x/y/z` as three items for `{/a,b}`.
    let parsed = template("{/a,b}{/c}");
    let variables = strings(&[("a", "x"), ("b", "y"), ("c", "z")]);
    assert_eq!(parsed.expand(&variables), "/x/y/z");
    assert_eq!(parsed.match_uri("/x/y/z"), Some(variables));
    assert_eq!(
        parsed.match_uri("/x/y"),
        Some(strings(&[("a", "x"), ("b", "y")]))
    );
}

#[test]
fn two_named_expressions_each_read_only_their_own_names() {
    // Issue 17: with the first variable undefined, the first expression took the second's item.
    for text in [
        "{;a}{;b}",
        "{?a}{&b}",
        "{&a}{&b}",
        "{;a,b}{;c}",
        "{?a,b}{&c}",
    ] {
        let parsed = template(text);
        let names = parsed.variable_names();
        // Every subset of the variables defined, each with its own value.
        for mask in 0..1_u32 << names.len() {
            let variables: Variables = names
                .iter()
                .enumerate()
                .filter(|(index, _)| mask & (1 << index) != 0)
                .map(|(index, name)| ((*name).to_owned(), TemplateValue::from(format!("v{index}"))))
                .collect();
            let uri = parsed.expand(&variables);
            assert_eq!(parsed.match_uri(&uri), Some(variables), "{text} -> {uri}");
        }
    }
}

#[test]
fn a_fragment_leaves_a_later_query_continuation_its_parameters() {
    // Issue 17: `{#a}` read `#x&b=1` as `a = "x&b=1"`, which re-expands to the same URI but is
    // not what was written; `&` is kept out of the fragment's value when it can be.
    let parsed = template("doc://{id}{#a}{&b}");
    assert_eq!(
        parsed.match_uri("doc://7#x&b=1"),
        Some(strings(&[("id", "7"), ("a", "x"), ("b", "1")]))
    );
    // A `&` the later expression cannot read stays in the fragment.
    assert_eq!(
        parsed.match_uri("doc://7#x&y"),
        Some(strings(&[("id", "7"), ("a", "x&y")]))
    );
    // Likewise `?` before a query expression.
    assert_eq!(
        template("file:///{+path}{?rev}").match_uri("file:///a?b"),
        Some(strings(&[("path", "a?b")]))
    );
}

#[test]
fn a_variable_named_in_two_expressions_reads_one_value() {
    // Issue 17: the longest first value (`a-b-a`) left `b` for the second, and no match.
    let parsed = template("{x}-{x}");
    let variables = strings(&[("x", "a-b")]);
    assert_eq!(parsed.expand(&variables), "a-b-a-b");
    assert_eq!(parsed.match_uri("a-b-a-b"), Some(variables));
    assert_eq!(parsed.match_uri("a-b-a-c"), None);
    // A variable the first expression leaves undefined and the second defines would be
    // written by both: `/x/y` is not an expansion of `{/a,b}{/b}` with `b = "y"`.
    let parsed = template("{/a,b}{/b}");
    assert_eq!(
        parsed.match_uri("/x/y/y"),
        Some(strings(&[("a", "x"), ("b", "y")]))
    );
    // Found by fuzzing: a split that leaves `q` out of `{/s,q}` and reads it in `{;q}` fails,
    // and must not stop the search from finding the split that reads it in both.
    let parsed = template("{/q9*}{/s,q}{g*}{;q}{&Re}");
    let uri = "/q8/mRk8/-vgvs727v9s;q=-vgvs&Re=s9";
    let matched = parsed.match_uri(uri);
    assert_eq!(
        matched.as_ref().and_then(|found| found["s"].as_str()),
        Some("mRk8")
    );
    assert_eq!(
        matched.map(|found| parsed.expand(&found)).as_deref(),
        Some(uri)
    );
    let parsed = template("{x}{/x}");
    assert_eq!(parsed.match_uri("ab/ab"), Some(strings(&[("x", "ab")])));
    assert_eq!(parsed.match_uri("ab/a"), None);
}

#[test]
fn a_split_that_re_expands_exactly_wins_over_an_earlier_that_only_reads_back() {
    // `a = "x,y"` reads back (a list joined by commas) but re-expands as `x%2Cy`; the later
    // split `a = "x"`, `b = ["", "y"]` re-expands to the URI itself.
    let parsed = template("{a}{b*}");
    let exact: Variables = [
        ("a".to_owned(), TemplateValue::from("x")),
        ("b".to_owned(), TemplateValue::from(vec!["", "y"])),
    ]
    .into();
    assert_eq!(parsed.match_uri("x,y"), Some(exact));
    // When no split re-expands exactly, the first that reads back is the match.
    assert_eq!(
        template("{a,b}{c}").match_uri("x,y,z"),
        Some(strings(&[("a", "x"), ("b", "y"), ("c", ",z")]))
    );
    // Ambiguous templates: of the exact splits, the earlier expression takes the longest text.
    assert_eq!(
        template("{a}{b}").match_uri("xyz"),
        Some(strings(&[("a", "xyz"), ("b", "")]))
    );
}

#[test]
fn a_uri_whose_splits_never_read_back_costs_a_bounded_time() {
    // Twelve adjacent two-variable expressions and a URI of commas: a plain depth-first
    // search would try every way to share the items among them. The work budget and the
    // table of failed searches bound it; the time bound is generous (a debug build on a
    // loaded machine) against the seconds an unbounded search takes.
    let text: String = (0..12)
        .map(|index| format!("{{a{index},b{index}}}"))
        .collect::<String>()
        + "!";
    let parsed = template(&text);
    let uri = "x,".repeat(2_000) + "?";
    let started = std::time::Instant::now();
    assert_eq!(parsed.match_uri(&uri), None);
    // Four hundred items for twelve expressions of two variables each: no split reads back.
    assert_eq!(parsed.match_uri(&("x,".repeat(200) + "!")), None);
    let elapsed = started.elapsed();
    eprintln!("two hostile matches took {elapsed:?}");
    assert!(
        elapsed < std::time::Duration::from_secs(5),
        "took {elapsed:?}"
    );
}

#[test]
fn documented_limits_of_matching_hold() {
    // Prefix modifiers do not limit the match.
    assert_eq!(
        template("{id:3}").match_uri("abcdef"),
        Some(strings(&[("id", "abcdef")]))
    );
    // Exploded associative arrays are not recovered.
    assert_eq!(template("x{?keys*}").match_uri("x?semi=%3B&dot=."), None);
    // A variable repeated in a template must match the same text everywhere.
    assert_eq!(
        template("{x}/{x}").match_uri("a/a"),
        Some(strings(&[("x", "a")]))
    );
    assert_eq!(template("{x}/{x}").match_uri("a/b"), None);
    // Overlong URIs never match.
    let long = "a".repeat(MAX_MATCH_LEN + 1);
    assert_eq!(template("{x}").match_uri(&long), None);
    assert!(template("{x}").match_uri(&long[..MAX_MATCH_LEN]).is_some());
}

#[test]
fn matching_has_no_exponential_backtracking() {
    // Twenty adjacent expressions and a literal that never comes: a backtracking matcher tries
    // every way to cut the URI among them before failing.
    let text: String = (0..20)
        .map(|index| format!("{{v{index}}}"))
        .collect::<String>()
        + "!";
    let parsed = template(&text);
    let uri = "a".repeat(4_000);
    assert_eq!(parsed.match_uri(&uri), None);
    let matched = parsed.match_uri(&format!("{uri}!")).unwrap();
    assert_eq!(matched["v0"].as_str(), Some(uri.as_str()));
    assert_eq!(matched["v19"].as_str(), Some(""));
}

#[test]
fn expanding_then_matching_returns_the_values_for_hand_picked_cases() {
    let list =
        |items: &[&str]| TemplateValue::List(items.iter().map(|item| (*item).to_owned()).collect());
    let cases: Vec<(&str, Variables)> = vec![
        ("test://template/{id}/data", strings(&[("id", "a b/c?d")])),
        (
            "file:///{+path}",
            strings(&[("path", "dir/sub dir/file.txt")]),
        ),
        ("res://{owner}/{repo}{/path*}{?ref,depth}", {
            let mut variables = strings(&[
                ("owner", "ada"),
                ("repo", "engine"),
                ("ref", "main"),
                ("depth", "2"),
            ]);
            variables.insert("path".to_owned(), list(&["src", "lib.rs"]));
            variables
        }),
        (
            "map://{;lat,long}{?zoom}",
            strings(&[("lat", "51.5"), ("long", "-0.1"), ("zoom", "")]),
        ),
        (
            "doc://{name}{.ext}{#section}",
            strings(&[("name", "notes"), ("ext", "md"), ("section", "a/b,c")]),
        ),
        ("search://{+base}/results{?q}{&filter*}", {
            let mut variables = strings(&[("base", "api/v1"), ("q", "rust & wasm")]);
            variables.insert("filter".to_owned(), list(&["new", "", "open"]));
            variables
        }),
    ];
    for (text, variables) in cases {
        let parsed = template(text);
        let uri = parsed.expand(&variables);
        assert_eq!(parsed.match_uri(&uri), Some(variables), "{text} -> {uri}");
    }
}

/// How the generated round trip fills one variable.
struct VariableKind {
    name: &'static str,
    /// Whether the value goes through `{+var}` or `{#var}` (so it avoids `%`, `?` and `#`).
    reserved: bool,
    /// Whether the value is a list rather than a string.
    list: bool,
    /// Whether the variable is sometimes left undefined.
    optional: bool,
}

/// A required string variable; the methods below adjust it.
const fn var(name: &'static str) -> VariableKind {
    VariableKind {
        name,
        reserved: false,
        list: false,
        optional: false,
    }
}

impl VariableKind {
    const fn reserved(self) -> Self {
        Self {
            reserved: true,
            ..self
        }
    }

    const fn list(self) -> Self {
        Self { list: true, ..self }
    }

    const fn optional(self) -> Self {
        Self {
            optional: true,
            ..self
        }
    }
}

/// A small deterministic generator, so the round trip below explores many values yet always
/// checks the same ones.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % bound as u64) as usize
    }

    fn text(&mut self, alphabet: &[char]) -> String {
        (0..self.next(6))
            .map(|_| alphabet[self.next(alphabet.len())])
            .collect()
    }
}

#[test]
fn expanding_then_matching_returns_the_values_for_generated_cases() {
    // Values for encoding operators use characters that must be encoded or are delimiters
    // elsewhere. `.` and `-` are left out everywhere: they are unreserved, so `{name}{.ext}`
    // is ambiguous by design. Values of `{+var}` and `{#var}` also leave out `%` (passed
    // through when it starts a triplet) and `?`/`#` (which the ambiguity breakers reserve).
    let encoded = [
        'a', 'Z', '7', ' ', '/', '?', '&', '=', ',', ';', '#', '+', 'é', '~', '_', '%', '"',
    ];
    let reserved = ['a', 'Z', '7', ' ', '/', ',', '=', ';', 'é', '~', '_', '!'];
    let templates: &[(&str, &[VariableKind])] = &[
        ("test://items/{id}/data", &[var("id")]),
        (
            "res://{owner}/{repo}{/path*}{?ref,depth}",
            &[
                var("owner"),
                var("repo"),
                var("path").list().optional(),
                var("ref").optional(),
                var("depth").optional(),
            ],
        ),
        (
            "map://here{;lat,long}{?zoom}",
            &[
                var("lat").optional(),
                var("long").optional(),
                var("zoom").optional(),
            ],
        ),
        (
            "doc://{name}{.ext}{#section}",
            &[
                var("name"),
                var("ext").optional(),
                var("section").reserved().optional(),
            ],
        ),
        (
            "search://{+base}/results{?q}{&filter*}",
            &[
                var("base").reserved(),
                var("q").optional(),
                var("filter").list().optional(),
            ],
        ),
        ("tags://x{?tag*}", &[var("tag").list().optional()]),
    ];
    let mut random = Lcg(0x5eed);
    for (text, specs) in templates {
        let parsed = template(text);
        for _ in 0..400 {
            let mut variables = Variables::new();
            for kind in *specs {
                if kind.optional && random.next(4) == 0 {
                    continue;
                }
                let alphabet: &[char] = if kind.reserved { &reserved } else { &encoded };
                let value = if kind.list {
                    let items = (0..1 + random.next(3))
                        .map(|_| random.text(alphabet))
                        .collect();
                    TemplateValue::List(items)
                } else {
                    TemplateValue::String(random.text(alphabet))
                };
                variables.insert(kind.name.to_owned(), value);
            }
            let uri = parsed.expand(&variables);
            assert_eq!(parsed.match_uri(&uri), Some(variables), "{text} -> {uri}");
        }
    }
}
