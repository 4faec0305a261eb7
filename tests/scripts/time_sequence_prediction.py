# Adapted from pytorch/examples, time_sequence_prediction/ (generate_sine_wave.py and train.py; BSD-3-Clause,
# Copyright (c) 2017, Pytorch contributors). Changes: `import torch` -> `import framework as torch`; the two files
# in one; the sine waves saved as a tensor, not a pickled NumPy array (torch.load refuses those by default since
# PyTorch 2.6, and framework.load always does, even with weights_only=False); smaller N/L/future and a --steps
# default of 2; the plots written only with --plot; main(argv) instead of the `__main__` block; losses recorded in
# LOSSES (lines marked "added") so that tests can read them.
from __future__ import print_function
import argparse
import os
import framework as torch
import framework.nn as nn
import framework.optim as optim
import numpy as np

LOSSES = []  # added


# ---- generate_sine_wave.py ----
def generate_sine_wave(path='traindata.pt', T=20, L=100, N=12):  # added: the script's body, as a function
    np.random.seed(2)

    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    with open(path, 'wb') as f:  # (the original leaves the file open)
        torch.save(torch.from_numpy(data), f)


# ---- train.py ----
class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future = 0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def train(seq, input, target, test_input, test_target, steps, plot='', future=50):  # added: main's loop
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    #begin to train
    for i in range(steps):
        print('STEP: ', i)
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            LOSSES.append(loss.item())  # added
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            y = pred.detach().numpy()
        if not plot:  # added
            continue
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        # draw the result
        plt.figure(figsize=(30,10))
        plt.title('Predict future values for time sequences\n(Dashlines are predicted values)', fontsize=30)
        plt.xlabel('x', fontsize=20)
        plt.ylabel('y', fontsize=20)
        plt.xticks(fontsize=20)
        plt.yticks(fontsize=20)
        def draw(yi, color):
            plt.plot(np.arange(input.size(1)), yi[:input.size(1)], color, linewidth = 2.0)
            plt.plot(np.arange(input.size(1), input.size(1) + future), yi[input.size(1):], color + ':', linewidth = 2.0)
        draw(y[0], 'r')
        draw(y[1], 'g')
        draw(y[2], 'b')
        plt.savefig(os.path.join(plot, 'predict%d.pdf'%i))
        plt.close()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=2, help='steps to run')
    parser.add_argument('--data', default='traindata.pt', help='the sine waves (written when missing)')  # added
    parser.add_argument('--plot', default='', help='folder for the predict%%d.pdf plots')  # added
    opt = parser.parse_args(argv)
    if not os.path.exists(opt.data):  # added
        generate_sine_wave(opt.data)
    # set random seed to 0
    np.random.seed(0)
    torch.manual_seed(0)
    # load data and make training set
    data = torch.load(opt.data).numpy()
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    # build the model
    seq = Sequence()
    seq.double()
    train(seq, input, target, test_input, test_target, opt.steps, opt.plot)
    return LOSSES  # added


if __name__ == '__main__':
    main()
