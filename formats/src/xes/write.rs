//! Writing multitraces as an XES log.

/// Escapes text for an XML attribute value.
fn escape(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// Writes multitraces as an XES log: `(run id, [(location, actions)])` per trace.
pub fn write_xes<'t>(
    out: &mut dyn std::io::Write,
    runs: impl IntoIterator<Item = (String, &'t [(String, Vec<String>)])>,
) -> std::io::Result<()> {
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<log xes.version="1849-2016" xes.features="" xmlns="http://www.xes-standard.org/">"#
    )?;
    writeln!(
        out,
        r#"  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>"#
    )?;
    writeln!(
        out,
        r#"  <extension name="Organizational" prefix="org" uri="http://www.xes-standard.org/org.xesext"/>"#
    )?;
    writeln!(
        out,
        r#"  <extension name="Time" prefix="time" uri="http://www.xes-standard.org/time.xesext"/>"#
    )?;
    let mut ms: i64 = 0;
    for (id, traces) in runs {
        writeln!(out, "  <trace>")?;
        writeln!(
            out,
            r#"    <string key="concept:name" value="{}"/>"#,
            escape(&id)
        )?;
        for (location, actions) in traces {
            for a in actions {
                writeln!(out, "    <event>")?;
                writeln!(
                    out,
                    r#"      <string key="concept:name" value="{}"/>"#,
                    escape(a)
                )?;
                writeln!(
                    out,
                    r#"      <string key="org:resource" value="{}"/>"#,
                    escape(location)
                )?;
                writeln!(
                    out,
                    r#"      <date key="time:timestamp" value="{}"/>"#,
                    epoch_millis(ms)
                )?;
                writeln!(out, "    </event>")?;
                ms += 1;
            }
        }
        writeln!(out, "  </trace>")?;
    }
    writeln!(out, "</log>")
}

/// `1970-01-01T00:00:00.000+00:00` plus `ms` milliseconds (RFC 3339).
pub(super) fn epoch_millis(ms: i64) -> String {
    let (secs, milli) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
