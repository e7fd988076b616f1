//! Themes and densities: the colours and sizes a frame is drawn with.
//!
//! A theme is a palette plus a few size choices; the cockpit theme is for an MFD panel read at
//! arm's length, so it trades density for contrast and larger type. Nothing here depends on a
//! snapshot: the compositor picks a [`Style`] once per frame and every stage reads from it.

use crate::color::Color;
use crate::units::Pixels;
use std::fmt;
use std::str::FromStr;

/// Which look the operator chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Theme {
    /// Light text on a dark background (the default).
    #[default]
    Dark,
    /// Dark text on a light background.
    Light,
    /// Maximum contrast and large type, for a cockpit-style MFD panel.
    Cockpit,
}

impl Theme {
    /// Every theme, in the order they are documented.
    pub const ALL: [Theme; 3] = [Theme::Dark, Theme::Light, Theme::Cockpit];

    /// The theme's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::Cockpit => "cockpit",
        }
    }
}

impl fmt::Display for Theme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Theme {
    type Err = String;
    fn from_str(value: &str) -> Result<Theme, String> {
        Theme::ALL
            .into_iter()
            .find(|theme| theme.name() == value)
            .ok_or_else(|| format!("unknown theme \"{value}\" (expected dark, light or cockpit)"))
    }
}

/// How tightly content is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Density {
    /// More on screen, smaller gaps.
    Compact,
    /// The default spacing.
    #[default]
    Comfortable,
}

/// The colours of a theme, by role.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// The window background.
    pub background: Color,
    /// The overview and header panels.
    pub panel: Color,
    /// A message card.
    pub card: Color,
    /// A card written by the human.
    pub card_user: Color,
    /// Borders and rules.
    pub border: Color,
    /// Body text.
    pub text: Color,
    /// Secondary text.
    pub muted: Color,
    /// Links, focus and selection.
    pub accent: Color,
    /// Open questions: what awaits an answer.
    pub question: Color,
    /// Confirmations of dangerous actions.
    pub danger: Color,
    /// The fill behind a pending confirmation.
    pub danger_fill: Color,
    /// Decisions and accepted outcomes.
    pub decision: Color,
    /// Code block background.
    pub code_fill: Color,
    /// Input field background.
    pub field: Color,
    /// The highlight behind the focused thread in the overview.
    pub focus_fill: Color,
}

/// Sizes, in logical pixels, that depend on theme and density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    /// Body text size.
    pub font_size: Pixels,
    /// Body line height.
    pub line_height: Pixels,
    /// Small text size (badges, meta lines).
    pub small_font_size: Pixels,
    /// Header title size.
    pub title_font_size: Pixels,
    /// Padding inside cards.
    pub card_padding: Pixels,
    /// Gap between cards.
    pub card_gap: Pixels,
    /// Height of one overview row.
    pub overview_row_height: Pixels,
    /// Height of the header band.
    pub header_height: Pixels,
    /// Card corner radius.
    pub corner_radius: Pixels,
    /// Border width of attention cards.
    pub attention_border: Pixels,
}

/// A theme resolved for one density: palette and metrics together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// The theme it came from.
    pub theme: Theme,
    /// The density it was sized for.
    pub density: Density,
    /// Colours.
    pub palette: Palette,
    /// Sizes.
    pub metrics: Metrics,
}

impl Style {
    /// The style of a theme at a density.
    pub fn new(theme: Theme, density: Density) -> Style {
        let palette = match theme {
            Theme::Dark => Palette {
                background: Color::hex(0x14161b),
                panel: Color::hex(0x1b1e25),
                card: Color::hex(0x23272f),
                card_user: Color::hex(0x1f2d3d),
                border: Color::hex(0x343a46),
                text: Color::hex(0xe6e9ef),
                muted: Color::hex(0x9aa3b2),
                accent: Color::hex(0x6ea8ff),
                question: Color::hex(0xf2c14e),
                danger: Color::hex(0xff6b57),
                danger_fill: Color::hex(0x3a1f1c),
                decision: Color::hex(0x5fd38d),
                code_fill: Color::hex(0x15181e),
                field: Color::hex(0x181b21),
                focus_fill: Color::hex(0x263a5c),
            },
            Theme::Light => Palette {
                background: Color::hex(0xf4f5f7),
                panel: Color::hex(0xe9ebef),
                card: Color::hex(0xffffff),
                card_user: Color::hex(0xe6f0fc),
                border: Color::hex(0xc9ced8),
                text: Color::hex(0x1b1f27),
                muted: Color::hex(0x5c6573),
                accent: Color::hex(0x1f5fd1),
                question: Color::hex(0x9a6700),
                danger: Color::hex(0xc4291c),
                danger_fill: Color::hex(0xfde9e6),
                decision: Color::hex(0x1a7f45),
                code_fill: Color::hex(0xf0f2f5),
                field: Color::hex(0xf7f8fa),
                focus_fill: Color::hex(0xd3e3fb),
            },
            Theme::Cockpit => Palette {
                background: Color::hex(0x000000),
                panel: Color::hex(0x0a0a0a),
                card: Color::hex(0x111111),
                card_user: Color::hex(0x0b1a24),
                border: Color::hex(0x5a5a5a),
                text: Color::hex(0xffffff),
                muted: Color::hex(0xc8c8c8),
                accent: Color::hex(0x00e5ff),
                question: Color::hex(0xffd400),
                danger: Color::hex(0xff3b30),
                danger_fill: Color::hex(0x2a0000),
                decision: Color::hex(0x39ff88),
                code_fill: Color::hex(0x000000),
                field: Color::hex(0x000000),
                focus_fill: Color::hex(0x003a48),
            },
        };
        let (font, gap) = match (theme, density) {
            (Theme::Cockpit, Density::Compact) => (16.0, 8.0),
            (Theme::Cockpit, Density::Comfortable) => (18.0, 12.0),
            (_, Density::Compact) => (13.0, 6.0),
            (_, Density::Comfortable) => (14.0, 10.0),
        };
        let metrics = Metrics {
            font_size: Pixels(font),
            line_height: Pixels((font * 1.4).round()),
            small_font_size: Pixels((font * 0.82).round()),
            title_font_size: Pixels((font * 1.3).round()),
            card_padding: Pixels(gap + 2.0),
            card_gap: Pixels(gap),
            overview_row_height: Pixels((font * 1.6).round()),
            header_height: Pixels((font * 3.6).round()),
            corner_radius: Pixels(if theme == Theme::Cockpit { 2.0 } else { 6.0 }),
            attention_border: Pixels(if theme == Theme::Cockpit { 4.0 } else { 2.5 }),
        };
        Style {
            theme,
            density,
            palette,
            metrics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theme_names_round_trip_and_unknown_names_are_explained() {
        for theme in Theme::ALL {
            assert_eq!(theme.name().parse::<Theme>(), Ok(theme));
        }
        let error = "neon".parse::<Theme>().unwrap_err();
        assert!(
            error.contains("\"neon\"") && error.contains("cockpit"),
            "{error}"
        );
    }

    #[test]
    fn cockpit_type_is_larger_than_dark() {
        let dark = Style::new(Theme::Dark, Density::Comfortable);
        let cockpit = Style::new(Theme::Cockpit, Density::Comfortable);
        assert!(cockpit.metrics.font_size > dark.metrics.font_size);
    }
}
