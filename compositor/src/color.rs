//! Colours, as the display list carries them: sRGB with straight alpha. Which colour a thing
//! is drawn in is the theme's business (`theme.rs`); this module only says what a colour is.

/// An sRGB colour with straight (not premultiplied) alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Color {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Opacity.
    pub a: u8,
}

impl Color {
    /// Nothing: a layer's background where the layers under it must show through.
    pub const TRANSPARENT: Color = Color {
        r: 0,
        g: 0,
        b: 0,
        a: 0,
    };

    /// An opaque colour from `0xRRGGBB`.
    pub const fn hex(rgb: u32) -> Color {
        Color {
            r: (rgb >> 16) as u8,
            g: (rgb >> 8) as u8,
            b: rgb as u8,
            a: 255,
        }
    }

    /// The same colour with another opacity.
    pub const fn with_alpha(self, a: u8) -> Color {
        Color { a, ..self }
    }
}
