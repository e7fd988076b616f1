//! Blending glyph images into a premultiplied RGBA frame buffer.
//!
//! Glyph images come from swash through cosmic-text's cache: 8-bit coverage masks for outline
//! fonts, RGBA bitmaps for colour emoji. They are blended here by hand, clipped to a device
//! rectangle, because drawing each glyph as a tiny-skia image would cost an allocation per
//! glyph. This module knows pixels only.

use crate::color::Color;
use cosmic_text::{SwashContent, SwashImage};

/// A rectangle of device pixels, `[x0, x1) × [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DeviceClip {
    /// Left edge.
    pub x0: i32,
    /// Top edge.
    pub y0: i32,
    /// Right edge (exclusive).
    pub x1: i32,
    /// Bottom edge (exclusive).
    pub y1: i32,
}

/// A frame buffer of premultiplied RGBA8 pixels.
pub(super) struct FrameBuffer<'a> {
    /// The pixels, row after row.
    pub data: &'a mut [u8],
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
}

/// `value / 255`, rounded, for `value` up to 255 × 255, without a division.
fn div255(value: u32) -> u32 {
    let value = value + 128;
    (value + (value >> 8)) >> 8
}

/// A premultiplied source pixel over a premultiplied destination pixel.
fn blend_over(source: [u32; 4], target: &mut [u8]) {
    let inverse = 255 - source[3];
    for (channel, &value) in target.iter_mut().zip(source.iter()) {
        *channel = (value + div255(u32::from(*channel) * inverse)).min(255) as u8;
    }
}

impl FrameBuffer<'_> {
    /// Blends a glyph image whose top-left corner is at (`x`, `y`), in `color` for masks.
    pub(super) fn blend_glyph(
        &mut self,
        image: &SwashImage,
        x: i32,
        y: i32,
        color: Color,
        clip: DeviceClip,
    ) {
        let placement = image.placement;
        let (width, height) = (placement.width as i32, placement.height as i32);
        let bytes_per_pixel = if image.content == SwashContent::Mask {
            1
        } else {
            4
        };
        if image.data.len() < (placement.width * placement.height) as usize * bytes_per_pixel {
            return;
        }
        let x0 = x.max(clip.x0).max(0);
        let y0 = y.max(clip.y0).max(0);
        let x1 = (x + width).min(clip.x1).min(self.width);
        let y1 = (y + height).min(clip.y1).min(self.height);
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        let premultiplied = |coverage: u32| {
            let alpha = div255(coverage * u32::from(color.a));
            [
                div255(u32::from(color.r) * alpha),
                div255(u32::from(color.g) * alpha),
                div255(u32::from(color.b) * alpha),
                alpha,
            ]
        };
        for row in y0..y1 {
            let target_row = (row * self.width) as usize * 4;
            let source_row = ((row - y) * width) as usize;
            for column in x0..x1 {
                let source = source_row + (column - x) as usize;
                let pixel = match image.content {
                    SwashContent::Mask => {
                        let coverage = image.data[source];
                        if coverage == 0 {
                            continue;
                        }
                        premultiplied(u32::from(coverage))
                    }
                    SwashContent::SubpixelMask => {
                        let rgb = &image.data[source * 4..source * 4 + 3];
                        premultiplied(
                            (u32::from(rgb[0]) + u32::from(rgb[1]) + u32::from(rgb[2])) / 3,
                        )
                    }
                    SwashContent::Color => {
                        let rgba = &image.data[source * 4..source * 4 + 4];
                        let alpha = u32::from(rgba[3]);
                        [
                            div255(u32::from(rgba[0]) * alpha),
                            div255(u32::from(rgba[1]) * alpha),
                            div255(u32::from(rgba[2]) * alpha),
                            alpha,
                        ]
                    }
                };
                if pixel[3] == 0 {
                    continue;
                }
                let target = target_row + column as usize * 4;
                blend_over(pixel, &mut self.data[target..target + 4]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(width: u32, height: u32, coverage: u8) -> SwashImage {
        let mut image = SwashImage::new();
        image.placement.width = width;
        image.placement.height = height;
        image.content = SwashContent::Mask;
        image.data = vec![coverage; (width * height) as usize];
        image
    }

    #[test]
    fn div255_rounds_like_a_division() {
        for value in 0..=255 * 255 {
            assert_eq!(div255(value), (value + 127) / 255, "{value}");
        }
    }

    #[test]
    fn a_full_coverage_mask_paints_the_colour_and_respects_the_clip() {
        let mut data = vec![0u8; 4 * 4 * 4];
        let mut frame = FrameBuffer {
            data: &mut data,
            width: 4,
            height: 4,
        };
        let clip = DeviceClip {
            x0: 0,
            y0: 0,
            x1: 2,
            y1: 4,
        };
        frame.blend_glyph(&mask(4, 4, 255), 0, 0, Color::hex(0xff8000), clip);
        assert_eq!(&data[0..4], &[255, 128, 0, 255]);
        assert_eq!(&data[8..12], &[0, 0, 0, 0], "column 2 is outside the clip");
    }

    #[test]
    fn glyphs_partly_off_the_frame_do_not_panic() {
        let mut data = vec![0u8; 4 * 4 * 4];
        let mut frame = FrameBuffer {
            data: &mut data,
            width: 4,
            height: 4,
        };
        let clip = DeviceClip {
            x0: -100,
            y0: -100,
            x1: 100,
            y1: 100,
        };
        frame.blend_glyph(&mask(8, 8, 128), -3, 2, Color::hex(0xffffff), clip);
        frame.blend_glyph(&mask(8, 8, 128), 100, 100, Color::hex(0xffffff), clip);
        assert_eq!(data[(2 * 4) * 4 + 3], 128);
    }
}
