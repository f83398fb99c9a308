(** * The softmax Jacobian J = Diag(p) − ppᵀ: J1 = 0, vᵀJv = Var_p(v) ∈ [0, ‖v‖²/2],
      ‖Jv‖ ≤ ‖v‖/2, and softmax is 1/2-Lipschitz in the 2-norm (softmax-lipschitz-v1,
      softmax-jvp-v1) *)
(** Exact arithmetic. The contracts' obligations compare the rounded kernels with these values
    within derived bounds (proofs/softmax_lipschitz.tex, proofs/softmax_jvp.tex); the rounding
    is not modelled here. Squared norms are used to avoid square roots until the last corollary. *)
From Coq Require Import Reals Lia Lra Psatz.
From Coquelicot Require Import Coquelicot.
From Attncheck Require Import Sums SoftmaxKernel.
Open Scope R_scope.

Definition dot (n : nat) (u v : nat -> R) : R := sum n (fun i => u i * v i).
Definition norm2 (n : nat) (v : nat -> R) : R := dot n v v.
Definition mean (n : nat) (p v : nat -> R) : R := sum n (fun i => p i * v i).
Definition var (n : nat) (p v : nat -> R) : R := sum n (fun i => p i * (v i - mean n p v) ^ 2).
(** (Diag(p) − ppᵀ) v, written as the kernel computes it: p ⊙ (v − ⟨v⟩_p). *)
Definition jvp (n : nat) (p v : nat -> R) (i : nat) : R := p i * (v i - mean n p v).

(** A probability vector on 0..n-1. *)
Definition simplex (n : nat) (p : nat -> R) : Prop :=
  (forall i, (i < n)%nat -> 0 <= p i) /\ sum n p = 1.

Lemma jvp_matrix_form n p v i : jvp n p v i = p i * v i - p i * sum n (fun j => p j * v j).
Proof. unfold jvp, mean. ring. Qed.

Lemma norm2_nonneg n v : 0 <= norm2 n v.
Proof. apply sum_nonneg. intros i _. nra. Qed.

(** SLIP-INV-001: J·(c·1) = 0. *)
Theorem jvp_const_zero n p c i : sum n p = 1 -> jvp n p (fun _ => c) i = 0.
Proof.
  intros Hp. unfold jvp, mean. rewrite sum_scal_r, Hp. ring.
Qed.

(** SJVP-INV-001: 1ᵀJv = 0, the JVP sums to zero. *)
Theorem jvp_sum_zero n p v : sum n p = 1 -> sum n (jvp n p v) = 0.
Proof.
  intros Hp. unfold jvp.
  rewrite (sum_ext n _ (fun i => p i * v i - mean n p v * p i)) by (intros; ring).
  rewrite sum_minus, sum_scal_l, Hp. unfold mean. ring.
Qed.

(** Σ p (v − c)² = Var_p(v) + (⟨v⟩_p − c)²: the mean minimises the spread. *)
Lemma spread_eq_var n p v c :
  sum n p = 1 -> sum n (fun i => p i * (v i - c) ^ 2) = var n p v + (mean n p v - c) ^ 2.
Proof.
  intros Hp. unfold var. set (m := mean n p v).
  rewrite (sum_ext n (fun i => p i * (v i - c) ^ 2)
             (fun i => p i * (v i - m) ^ 2 + (2 * (m - c) * (p i * v i) + (c * c - m * m) * p i)))
    by (intros; ring).
  rewrite sum_plus, sum_plus, sum_scal_l, sum_scal_l, Hp. fold (mean n p v). fold m. ring.
Qed.

(** SLIP-BND-001 and SJVP-EQV-005: vᵀ(Diag(p) − ppᵀ)v = Σ p v² − ⟨v⟩_p² = Var_p(v). *)
Theorem jvp_quad_form_var n p v :
  sum n p = 1 ->
  dot n v (jvp n p v) = sum n (fun i => p i * v i * v i) - (mean n p v) ^ 2
  /\ dot n v (jvp n p v) = var n p v.
Proof.
  intros Hp. assert (H1 : dot n v (jvp n p v) = sum n (fun i => p i * v i * v i) - mean n p v ^ 2).
  { unfold dot, jvp.
    rewrite (sum_ext n _ (fun i => p i * v i * v i - mean n p v * (p i * v i))) by (intros; ring).
    rewrite sum_minus, sum_scal_l. fold (mean n p v). ring. }
  split; [exact H1|]. rewrite H1.
  pose proof (spread_eq_var n p v 0 Hp) as H.
  rewrite (sum_ext n (fun i => p i * (v i - 0) ^ 2) (fun i => p i * v i * v i)) in H by (intros; ring).
  lra.
Qed.

(** SLIP-BND-001: the form is positive semidefinite. *)
Theorem var_nonneg n p v : simplex n p -> 0 <= var n p v.
Proof.
  intros [Hp _]. apply sum_nonneg. intros i Hi. apply Rmult_le_pos; [apply Hp, Hi | apply pow2_ge_0].
Qed.

(** SLIP-BND-001: Var_p(v) ≤ (max v − min v)²/4 ≤ ‖v‖²/2 (Popoviciu, then two squares). *)
Theorem var_le_half_norm2 n p v : (0 < n)%nat -> simplex n p -> var n p v <= norm2 n v / 2.
Proof.
  intros Hn [Hp Hs].
  destruct (argmax n v Hn) as [a [Ha Hmax]]. destruct (argmin n v Hn) as [b [Hb Hmin]].
  set (c := (v a + v b) / 2).
  assert (Hspread : var n p v <= sum n (fun i => p i * (v i - c) ^ 2)).
  { rewrite (spread_eq_var n p v c Hs). pose proof (pow2_ge_0 (mean n p v - c)). lra. }
  assert (Hpop : sum n (fun i => p i * (v i - c) ^ 2) <= (v a - v b) ^ 2 / 4).
  { replace ((v a - v b) ^ 2 / 4) with (sum n (fun i => p i * ((v a - v b) ^ 2 / 4))).
    - apply sum_le. intros i Hi. apply Rmult_le_compat_l; [apply Hp, Hi|].
      specialize (Hmax i Hi). specialize (Hmin i Hi). unfold c. nra.
    - rewrite sum_scal_r, Hs. ring. }
  destruct (Nat.eq_dec a b) as [Heq|Hab].
  - assert (Hz : (v a - v b) ^ 2 / 4 = 0) by (rewrite Heq; field).
    pose proof (norm2_nonneg n v). lra.
  - assert (H2 : v a * v a + v b * v b <= norm2 n v).
    { apply (two_terms_le_sum n (fun i => v i * v i) a b); [intros; nra | exact Ha | exact Hb | exact Hab]. }
    assert ((v a - v b) ^ 2 / 4 <= (v a * v a + v b * v b) / 2)
      by (pose proof (pow2_ge_0 (v a + v b)); nra).
    lra.
Qed.

(** Cauchy–Schwarz for the PSD form: (uᵀJv)² ≤ (uᵀJu)(vᵀJv). *)
Theorem jvp_cauchy_schwarz n p u v :
  simplex n p -> (dot n u (jvp n p v)) ^ 2 <= var n p u * var n p v.
Proof.
  intros [Hp Hs].
  assert (Huv : dot n u (jvp n p v)
                = sum n (fun i => p i * (u i - mean n p u) * (v i - mean n p v))).
  { unfold dot, jvp.
    rewrite (sum_ext n (fun i => p i * (u i - mean n p u) * (v i - mean n p v))
               (fun i => u i * (p i * (v i - mean n p v)) - mean n p u * (p i * v i - mean n p v * p i)))
      by (intros; ring).
    rewrite sum_minus, sum_scal_l, sum_minus, sum_scal_l, Hs. fold (mean n p v). ring. }
  assert (Hvar : forall w, var n p w = sum n (fun i => p i * (w i - mean n p w) * (w i - mean n p w))).
  { intros w. unfold var. apply sum_ext. intros; ring. }
  rewrite Huv, Hvar, Hvar. apply cauchy_schwarz_weighted. exact Hp.
Qed.

(** SJVP-BND-001: ‖Jv‖² ≤ ‖v‖²/4, i.e. ‖J‖₂ ≤ 1/2, without the spectral theorem. *)
Theorem jvp_norm_le_half n p v :
  (0 < n)%nat -> simplex n p -> norm2 n (jvp n p v) <= norm2 n v / 4.
Proof.
  intros Hn Hsp. set (w := jvp n p v).
  pose proof (jvp_cauchy_schwarz n p w v Hsp) as Hcs.
  pose proof (var_le_half_norm2 n p w Hn Hsp). pose proof (var_le_half_norm2 n p v Hn Hsp).
  pose proof (var_nonneg n p w Hsp). pose proof (var_nonneg n p v Hsp).
  pose proof (norm2_nonneg n w). pose proof (norm2_nonneg n v).
  fold w in Hcs. change (dot n w w) with (norm2 n w) in Hcs.
  assert (Hb : norm2 n w ^ 2 <= norm2 n w * (norm2 n v / 4)).
  { apply (Rle_trans _ _ _ Hcs).
    apply (Rle_trans _ ((norm2 n w / 2) * (norm2 n v / 2))); [|lra].
    apply Rmult_le_compat; assumption. }
  destruct (Req_dec (norm2 n w) 0) as [Hz|Hz]; [rewrite Hz; lra|].
  apply (Rmult_le_reg_l (norm2 n w)); [lra|]. nra.
Qed.

(** ** The ℓ2 Lipschitz constant 1/2, through the mean value theorem *)

Lemma softmax_simplex n x : (0 < n)%nat -> simplex n (softmax n x).
Proof.
  intros Hn. split; [intros; left; apply softmax_pos, Hn | apply softmax_sum_1, Hn].
Qed.

Lemma softmax_ext n x y i : (forall j, x j = y j) -> softmax n x i = softmax n y i.
Proof.
  intros H. unfold softmax, partition. rewrite H. f_equal. apply sum_ext. intros j _. rewrite H. reflexivity.
Qed.

Lemma derivable_sum n (F : nat -> R -> R) (dF : nat -> R) t :
  (forall i, (i < n)%nat -> derivable_pt_lim (F i) t (dF i)) ->
  derivable_pt_lim (fun s => sum n (fun i => F i s)) t (sum n dF).
Proof.
  induction n as [|n IH]; intros H; simpl.
  - apply derivable_pt_lim_const.
  - apply (derivable_pt_lim_plus (fun s => sum n (fun i => F i s)) (F n)).
    + apply IH. intros; apply H; lia.
    + apply H; lia.
Qed.

(** The derivative of one exponential along the line x + t·d (Coquelicot's [auto_derive]). *)
Lemma derivable_exp_line a b t : derivable_pt_lim (fun s => exp (a + s * b)) t (b * exp (a + t * b)).
Proof. apply is_derive_Reals. auto_derive; [exact I | ring]. Qed.

(** SLIP-EQV-001 / SJVP-EQV-001 (exact core): d/dt softmax(x + t·d) = J(x + t·d)·d. *)
Theorem softmax_line_derivative n x d i t :
  (0 < n)%nat ->
  derivable_pt_lim (fun s => softmax n (fun j => x j + s * d j) i) t
                   (jvp n (softmax n (fun j => x j + t * d j)) d i).
Proof.
  intros Hn.
  set (E := fun j s => exp (x j + s * d j)).
  assert (HZ : derivable_pt_lim (fun s => sum n (fun j => E j s)) t (sum n (fun j => d j * E j t)))
    by (apply derivable_sum; intros; apply derivable_exp_line).
  assert (Z0 : sum n (fun j => E j t) <> 0)
    by (apply Rgt_not_eq, sum_pos; [exact Hn | intros; apply exp_pos]).
  pose proof (derivable_pt_lim_div (E i) (fun s => sum n (fun j => E j s)) t _ _
                (derivable_exp_line (x i) (d i) t) HZ Z0) as H.
  unfold div_fct in H. unfold softmax, partition. fold (E i).
  replace (jvp n (fun k => exp (x k + t * d k) / sum n (fun j => exp (x j + t * d j))) d i)
    with ((d i * exp (x i + t * d i) * sum n (fun j => E j t)
           - sum n (fun j => d j * E j t) * E i t) / Rsqr (sum n (fun j => E j t))).
  - exact H.
  - unfold jvp, mean. fold (E i t).
    rewrite (sum_ext n (fun j => exp (x j + t * d j) / sum n (fun k => exp (x k + t * d k)) * d j)
                       (fun j => (d j * E j t) / sum n (fun k => E k t))) by (intros; unfold E; field; exact Z0).
    rewrite sum_div. unfold Rsqr. unfold E in Z0 |- *. field. exact Z0.
Qed.

(** SLIP-BND-002 (exact core): ‖softmax(y) − softmax(x)‖² ≤ ‖y − x‖²/4. *)
Theorem softmax_lipschitz_half_sq n x y :
  (0 < n)%nat ->
  norm2 n (fun i => softmax n y i - softmax n x i) <= norm2 n (fun i => y i - x i) / 4.
Proof.
  intros Hn. set (d := fun j => y j - x j). set (w := fun i => softmax n y i - softmax n x i).
  set (g := fun s => sum n (fun i => w i * softmax n (fun j => x j + s * d j) i)).
  set (g' := fun s => dot n w (jvp n (softmax n (fun j => x j + s * d j)) d)).
  destruct (MVT_cor2 g g' 0 1 Rlt_0_1) as [c [Hc _]].
  { intros c _. unfold g, g', dot. apply derivable_sum. intros i Hi.
    apply (derivable_pt_lim_scal (fun s => softmax n (fun j => x j + s * d j) i)).
    apply softmax_line_derivative, Hn. }
  assert (Hg : g 1 - g 0 = norm2 n w).
  { unfold g, norm2, dot. rewrite <- sum_minus. apply sum_ext. intros i _.
    rewrite (softmax_ext n (fun j => x j + 1 * d j) y) by (intros; unfold d; ring).
    rewrite (softmax_ext n (fun j => x j + 0 * d j) x) by (intros; ring).
    unfold w. ring. }
  rewrite Hg, Rminus_0_r, Rmult_1_r in Hc.
  set (p := softmax n (fun j => x j + c * d j)).
  pose proof (softmax_simplex n (fun j => x j + c * d j) Hn) as Hsp. fold p in Hsp.
  pose proof (jvp_cauchy_schwarz n p w d Hsp) as Hcs.
  unfold g' in Hc. fold p in Hc. rewrite <- Hc in Hcs.
  pose proof (var_le_half_norm2 n p w Hn Hsp). pose proof (var_le_half_norm2 n p d Hn Hsp).
  pose proof (var_nonneg n p w Hsp). pose proof (var_nonneg n p d Hsp).
  pose proof (norm2_nonneg n w). pose proof (norm2_nonneg n d).
  assert (Hb : norm2 n w ^ 2 <= norm2 n w * (norm2 n d / 4)).
  { apply (Rle_trans _ _ _ Hcs).
    apply (Rle_trans _ ((norm2 n w / 2) * (norm2 n d / 2))); [|lra].
    apply Rmult_le_compat; assumption. }
  destruct (Req_dec (norm2 n w) 0) as [Hz|Hz]; [rewrite Hz; lra|].
  apply (Rmult_le_reg_l (norm2 n w)); [lra|]. nra.
Qed.

(** SLIP-BND-002: softmax is 1/2-Lipschitz in the 2-norm. *)
Theorem softmax_lipschitz_half n x y :
  (0 < n)%nat ->
  sqrt (norm2 n (fun i => softmax n y i - softmax n x i)) <= sqrt (norm2 n (fun i => y i - x i)) / 2.
Proof.
  intros Hn. pose proof (softmax_lipschitz_half_sq n x y Hn) as H.
  set (b := norm2 n (fun i => y i - x i)) in *. pose proof (norm2_nonneg n (fun i => y i - x i)) as Hb.
  fold b in Hb.
  replace (sqrt b / 2) with (sqrt (b / 4)).
  - apply sqrt_le_1_alt, H.
  - pose proof (sqrt_pos b) as Hs.
    assert (Hsq : (sqrt b / 2) ^ 2 = b / 4) by (rewrite <- (sqrt_sqrt b Hb) at 2; field).
    rewrite <- Hsq. apply sqrt_pow2. lra.
Qed.

(** SJVP-EQV-002 (exact core): the JVP is linear in the direction. *)
Theorem jvp_linear n p a b u v i :
  jvp n p (fun j => a * u j + b * v j) i = a * jvp n p u i + b * jvp n p v i.
Proof.
  unfold jvp, mean.
  rewrite (sum_ext n _ (fun j => a * (p j * u j) + b * (p j * v j))) by (intros; ring).
  rewrite sum_plus, sum_scal_l, sum_scal_l. ring.
Qed.

(** SLIP-TGT-001 (exact core): at the two-point distribution p = (1/2, 1/2) and v = (1, −1),
    ‖Jv‖² = ‖v‖²/4: the constant 1/2 is attained. *)
Theorem two_point_attains_half :
  let p := fun _ : nat => / 2 in
  let v := fun j : nat => match j with O => 1 | _ => -1 end in
  norm2 2 (jvp 2 p v) = norm2 2 v / 4.
Proof. intros p v. unfold norm2, dot, jvp, mean, p, v. simpl. field. Qed.

(** SLIP-TGT-001 (exact core): at the uniform distribution over n ≥ 1 entries, ‖Jv‖² ≤ ‖v‖²/n²:
    uniform attention does not attain 1/2 once n > 2 (the correction of the softmax-filtering bound plan). *)
Theorem uniform_jvp_norm n v :
  (0 < n)%nat -> norm2 n (jvp n (fun _ => / INR n) v) <= norm2 n v / (INR n * INR n).
Proof.
  intros Hn. assert (HN : 0 < INR n) by (apply lt_0_INR; exact Hn).
  set (p := fun _ : nat => / INR n).
  assert (Hsp : simplex n p).
  { split; [intros; left; apply Rinv_0_lt_compat, HN|].
    unfold p. rewrite sum_const. field. lra. }
  (* ‖Jv‖² = Σ (v_i − μ)²/n² = Var_p(v)/n ≤ Σ v_i² /(n·n), since Var_p(v) ≤ Σ p v² = ‖v‖²/n. *)
  assert (Hj : norm2 n (jvp n p v) = var n p v / INR n).
  { unfold norm2, dot, jvp, var, p. rewrite <- sum_div. apply sum_ext. intros; field. lra. }
  pose proof (jvp_quad_form_var n p v (proj2 Hsp)) as [Hq Hv].
  assert (Hm : sum n (fun i => p i * v i * v i) = norm2 n v / INR n).
  { unfold norm2, dot, p. rewrite <- sum_div. apply sum_ext. intros; field. lra. }
  pose proof (pow2_ge_0 (mean n p v)).
  rewrite Hj. apply (Rmult_le_reg_r (INR n)); [exact HN|].
  replace (var n p v / INR n * INR n) with (var n p v) by (field; lra).
  replace (norm2 n v / (INR n * INR n) * INR n) with (norm2 n v / INR n) by (field; lra).
  lra.
Qed.
