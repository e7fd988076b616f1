//! Unit newtypes, so logical and device pixels cannot be mixed by accident.
//!
//! Everything up to the display list is measured in logical [`Pixels`]; only the rasteriser
//! multiplies by the [`ScaleFactor`] and works in [`DevicePixels`]. A value changes unit only
//! through the explicit conversions here: [`px`] makes a length, [`Pixels::as_f32`] gives its
//! number back, [`Pixels::to_device`] and [`Rect::to_device`] go to the device.

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// A length in logical pixels (what the operator's theme sizes are written in). Outside this
/// crate it is made with [`px`] and read with [`Pixels::as_f32`].
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Pixels(pub(crate) f32);

/// A length of `value` logical pixels.
pub const fn px(value: f32) -> Pixels {
    Pixels(value)
}

/// A length in device pixels (what the frame buffer holds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DevicePixels(pub u32);

/// Device pixels per logical pixel.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct ScaleFactor(pub f32);

impl Pixels {
    /// Zero pixels.
    pub const ZERO: Pixels = Pixels(0.0);

    /// The number of logical pixels.
    pub const fn as_f32(self) -> f32 {
        self.0
    }

    /// The length on a device with this scale, rounded to whole device pixels.
    pub fn to_device(self, scale: ScaleFactor) -> DevicePixels {
        DevicePixels((self.0 * scale.0).round().max(0.0) as u32)
    }

    /// The larger of two lengths.
    pub fn max(self, other: Pixels) -> Pixels {
        Pixels(self.0.max(other.0))
    }

    /// The smaller of two lengths.
    pub fn min(self, other: Pixels) -> Pixels {
        Pixels(self.0.min(other.0))
    }

    /// The length without its sign.
    pub fn abs(self) -> Pixels {
        Pixels(self.0.abs())
    }
}

impl Add for Pixels {
    type Output = Pixels;
    fn add(self, rhs: Pixels) -> Pixels {
        Pixels(self.0 + rhs.0)
    }
}

impl AddAssign for Pixels {
    fn add_assign(&mut self, rhs: Pixels) {
        self.0 += rhs.0;
    }
}

impl Sub for Pixels {
    type Output = Pixels;
    fn sub(self, rhs: Pixels) -> Pixels {
        Pixels(self.0 - rhs.0)
    }
}

impl SubAssign for Pixels {
    fn sub_assign(&mut self, rhs: Pixels) {
        self.0 -= rhs.0;
    }
}

impl Mul<f32> for Pixels {
    type Output = Pixels;
    fn mul(self, rhs: f32) -> Pixels {
        Pixels(self.0 * rhs)
    }
}

impl Div<f32> for Pixels {
    type Output = Pixels;
    fn div(self, rhs: f32) -> Pixels {
        Pixels(self.0 / rhs)
    }
}

/// How many times one length goes into another.
impl Div for Pixels {
    type Output = f32;
    fn div(self, rhs: Pixels) -> f32 {
        self.0 / rhs.0
    }
}

impl Neg for Pixels {
    type Output = Pixels;
    fn neg(self) -> Pixels {
        Pixels(-self.0)
    }
}

/// A point in logical pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    /// Distance from the left edge.
    pub x: Pixels,
    /// Distance from the top edge.
    pub y: Pixels,
}

impl Point {
    /// The point on a device with this scale, as `[x, y]` rounded to whole device pixels.
    pub fn to_device(&self, scale: ScaleFactor) -> [f32; 2] {
        [(self.x.0 * scale.0).round(), (self.y.0 * scale.0).round()]
    }
}

/// A rectangle in logical pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: Pixels,
    /// Top edge.
    pub y: Pixels,
    /// Width.
    pub width: Pixels,
    /// Height.
    pub height: Pixels,
}

impl Rect {
    /// A rectangle from plain numbers.
    pub fn new(x: f32, y: f32, width: f32, height: f32) -> Rect {
        Rect {
            x: Pixels(x),
            y: Pixels(y),
            width: Pixels(width),
            height: Pixels(height),
        }
    }

    /// The right edge.
    pub fn right(&self) -> Pixels {
        self.x + self.width
    }

    /// The bottom edge.
    pub fn bottom(&self) -> Pixels {
        self.y + self.height
    }

    /// The same rectangle moved by an offset.
    pub fn translate(&self, dx: Pixels, dy: Pixels) -> Rect {
        Rect {
            x: self.x + dx,
            y: self.y + dy,
            ..*self
        }
    }

    /// The overlap of two rectangles; empty (zero-sized) when they do not meet.
    pub fn intersect(&self, other: &Rect) -> Rect {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let right = self.right().min(other.right());
        let bottom = self.bottom().min(other.bottom());
        Rect {
            x,
            y,
            width: (right - x).max(Pixels::ZERO),
            height: (bottom - y).max(Pixels::ZERO),
        }
    }

    /// Whether the rectangle covers no area.
    pub fn is_empty(&self) -> bool {
        self.width.0 <= 0.0 || self.height.0 <= 0.0
    }

    /// Whether a point lies inside.
    pub fn contains(&self, point: Point) -> bool {
        point.x >= self.x && point.x < self.right() && point.y >= self.y && point.y < self.bottom()
    }

    /// The rectangle on a device with this scale, as `[x, y, width, height]` in device pixels:
    /// the edges are rounded to whole pixels, so two rectangles that touch here touch there.
    pub fn to_device(&self, scale: ScaleFactor) -> [f32; 4] {
        let device = |value: Pixels| (value.0 * scale.0).round();
        let (x, y) = (device(self.x), device(self.y));
        [x, y, device(self.right()) - x, device(self.bottom()) - y]
    }

    /// Whether the point (`x`, `y`) lies inside.
    pub fn contains_xy(&self, x: f32, y: f32) -> bool {
        self.contains(Point {
            x: Pixels(x),
            y: Pixels(y),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_to_device_rounds_at_the_scale() {
        assert_eq!(Pixels(10.3).to_device(ScaleFactor(2.0)), DevicePixels(21));
        assert_eq!(Pixels(-3.0).to_device(ScaleFactor(1.0)), DevicePixels(0));
    }

    #[test]
    fn a_rectangle_on_the_device_keeps_its_edges_on_whole_pixels() {
        let left = Rect::new(0.3, 1.0, 10.4, 5.0);
        let right = Rect::new(10.7, 1.0, 4.0, 5.0);
        let [x, _, width, _] = left.to_device(ScaleFactor(1.5));
        let [next, _, _, _] = right.to_device(ScaleFactor(1.5));
        assert_eq!((x, width), (0.0, 16.0));
        assert_eq!(x + width, next, "touching rectangles still touch");
        assert_eq!(-px(2.0) / 2.0, px(-1.0));
        assert_eq!(px(9.0) / px(3.0), 3.0);
    }

    #[test]
    fn disjoint_rectangles_intersect_to_nothing() {
        let a = Rect::new(0.0, 0.0, 10.0, 10.0);
        let b = Rect::new(20.0, 0.0, 10.0, 10.0);
        assert!(a.intersect(&b).is_empty());
        assert_eq!(
            a.intersect(&Rect::new(5.0, 5.0, 10.0, 10.0)),
            Rect::new(5.0, 5.0, 5.0, 5.0)
        );
    }
}
