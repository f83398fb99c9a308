// attncheck: a one-trait repair that lets Boost 1.74's forward-mode autodiff run over MPFR numbers.
//
// What goes wrong. fvar<R, N> (boost/math/differentiation/autodiff.hpp) declares its conversion
// to arithmetic types as
//     template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>> explicit operator T();
// without `::type`, so the default argument names the enable_if class itself and never fails:
// the conversion template claims to convert an fvar to ANY type. Boost.Multiprecision asks
// detail::is_explicitly_convertible<From, Backend> (a "does `new Backend(declval<From>())`
// compile" probe) to choose between number's constructors; the probe believes the false claim,
// so `static_cast<root_type>(fvar)`, which autodiff's exp, log, sqrt and division perform, picks
// number<mpfr_float_backend>'s explicit converting constructor and then fails hard inside it
// (no fvar -> mpfr_float_backend conversion exists). cpp_bin_float escapes only because it has
// its own specialisation of the trait.
//
// The repair. State the truth for the pair that matters here: an fvar over any root type is not
// explicitly convertible to an MPFR backend. number's constructor is then discarded and the
// cast goes through fvar's own `operator root_type()`, which is what autodiff intends. Nothing
// else changes: no Boost header is edited, the trait is only narrowed (never widened), and it
// must be seen before the first instantiation, which is why oracle/autodiff.hpp includes this
// right after the two Boost headers. Checked against Boost 1.74 (the Debian 12 version) only;
// on a Boost whose enable_if is repaired the specialisation is merely redundant.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/math/differentiation/autodiff.hpp>
#include <boost/multiprecision/mpfr.hpp>

namespace boost::multiprecision::detail {

template <class Root, std::size_t Order, unsigned Digits10, mpfr_allocation_type Alloc>
struct is_explicitly_convertible<boost::math::differentiation::detail::fvar<Root, Order>,
                                 backends::mpfr_float_backend<Digits10, Alloc>> : std::false_type {};

}  // namespace boost::multiprecision::detail
